#!/bin/sh
# Stage 1 of the systemd VM (fbvm.root=1), sourced by /init: mounts the root image from
# /dev/vda (opened with snapshot=on: nothing is written back), copies the case in, and hands
# PID 1 to systemd. Files under /fbvm-root in the initrd land at the same paths in the root;
# the guest helpers go to /fbvm/bin.
for m in virtio_pci virtio_blk ext4; do load $m; done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
mkdir -p /newroot
mount -t ext4 /dev/vda /newroot || { echo "fbvm: cannot mount /dev/vda"; poweroff -f; }
mkdir -p /newroot/fbvm/bin
for h in fbfill evdump uinput-dev vtstate kioskapp drmapp; do [ -f /bin/$h ] && cp /bin/$h /newroot/fbvm/bin/; done
cp /case.sh /newroot/fbvm/case.sh
cp /lib/fbvm.sh /newroot/fbvm/fbvm.sh
cp /lib/fbvm-run.sh /newroot/fbvm/run.sh
[ -d /fbvm-root ] && cp -a /fbvm-root/. /newroot/
umount /proc /sys /dev
exec switch_root /newroot /lib/systemd/systemd
