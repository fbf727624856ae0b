/* seed_prog.c - seed 000's program loop on a raw framebuffer file: the whole-process yardstick. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "image/image.h"
#include "image/pixfmt.h"
#include "seed_port.h"

/*
 * seed_prog FILE WIDTH HEIGHT BPP FRAMES RATE STEPS_PER_SECOND [FPS]
 *
 * What the seed's WinMain does, frame after frame, with a raw file for the screen as
 * fbripple's --fbdev has: the picture on one page, ripplespread, renderripple onto the screen
 * page, stones dropped at random (here fbripple's rain: RATE a second at STEPS_PER_SECOND steps,
 * fbripple's raindrop of 8 pixels and 64 deep at 1080p). The picture is fbripple's built-in
 * splash, so that both programs pay for the same one. No pacing: as fast as it goes, then the
 * file is synced and the program ends, as fbripple --frames does. With FPS, paced instead:
 * one frame every 1/FPS s on the monotonic clock, as the seed's timer drove it (a screensaver's
 * cost, beside a paced fbripple).
 */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (*s * 0x2545F4914F6CDD1DULL) >> 32;
}

int main(int argc, char **argv)
{
	int width, height, bytes, frames, fd;
	double rate, due = 0, fps = 0;
	struct timespec tick;
	uint64_t rng = 88172645463325252ULL;
	struct pixfmt fmt;
	struct image img;
	struct seed s;
	uint8_t *pic, *fb;
	size_t pitch, len;

	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: seed_prog FILE WIDTH HEIGHT BPP FRAMES RATE STEPS [FPS]\n");
		return 2;
	}
	if (argc == 9)
		fps = atof(argv[8]);
	width = atoi(argv[2]);
	height = atoi(argv[3]);
	pixfmt_by_name(&fmt, atoi(argv[4]) == 16 ? "RGB565" : "XRGB8888");
	bytes = fmt.bytes;
	frames = atoi(argv[5]);
	rate = atof(argv[6]) / atof(argv[7]);
	pitch = (size_t)width * bytes;
	len = pitch * height;
	fd = open(argv[1], O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		perror(argv[1]);
		return 1;
	}
	fb = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pic = malloc(len);
	if (fb == MAP_FAILED || !pic || image_builtin(&img, width, height) < 0 ||
	    seed_init(&s, width, height, 5) < 0) {
		perror("seed_prog");
		return 1;
	}
	pixfmt_convert(&fmt, &img, pic, pitch);
	image_free(&img);
	clock_gettime(CLOCK_MONOTONIC, &tick);
	for (int f = 0; f < frames; f++) {
		if (fps > 0) {	/* the next frame's time, slept to */
			long ns = tick.tv_nsec + (long)(1e9 / fps);

			tick.tv_sec += ns / 1000000000L;
			tick.tv_nsec = ns % 1000000000L;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
		}
		for (due += rate; due >= 1.0; due -= 1.0) {
			int x = (int)(next_random(&rng) * width >> 32);
			int y = (int)(next_random(&rng) * height >> 32);

			seed_dropstone(&s, x, y, 8, 64);
		}
		seed_ripplespread(&s);
		seed_renderripple(&s, pic, (int)pitch, fb, (int)pitch, bytes);
	}
	msync(fb, len, MS_SYNC);
	munmap(fb, len);
	seed_free(&s);
	free(pic);
	close(fd);
	return 0;
}
