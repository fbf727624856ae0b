/* control_socket.h - the listening end of the control socket, for its server. */
#ifndef FBRIPPLE_CONTROL_SOCKET_H
#define FBRIPPLE_CONTROL_SOCKET_H

/* A non-blocking socket listening at path with mode 0660, its directory made if missing (one
 * level), a stale socket there replaced; or -errno as control_listen() says. */
int control_socket_bind(const char *path);

#endif
