/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who is at the other end of gdb's connection. The stub listens on
 * 127.0.0.1, which every user of the machine can reach, and what it
 * serves (the guest's memory, the recording's files) is its owner's: a
 * connection from another uid is refused. TCP has no SO_PEERCRED, so the
 * connecting socket is looked up in /proc/net/tcp (proc(5)), where the
 * kernel lists each socket with its owner (sock_i_uid(), seen from this
 * user namespace): the one whose local end is our peer's address and
 * whose remote end is ours.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#include "common/common.h"
#include "internal.h"

int replay_peer_uid(int fd, uid_t *uid)
{
	struct sockaddr_in self, peer;
	socklen_t len = sizeof(self);
	char line[512];
	FILE *f;
	int err = -ESRCH;

	if (getsockname(fd, (struct sockaddr *)&self, &len) < 0)
		return -errno;
	len = sizeof(peer);
	if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0)
		return -errno;
	if (self.sin_family != AF_INET || peer.sin_family != AF_INET)
		return -EAFNOSUPPORT;
	f = fopen("/proc/net/tcp", "re");
	if (!f)
		return -errno;
	/* "sl local_address rem_address st ... uid ...": addresses as the
	 * kernel's __be32 printed %08X, ports in host order %04X
	 * (net/ipv4/tcp_ipv4.c, get_tcp4_sock()). */
	while (fgets(line, sizeof(line), f)) {
		unsigned la, lp, ra, rp, st, u;

		if (sscanf(line, " %*u: %8X:%4X %8X:%4X %2X %*X:%*X %*X:%*X %*X %u", &la, &lp, &ra,
			   &rp, &st, &u) != 6)
			continue;
		if (la == peer.sin_addr.s_addr && lp == ntohs(peer.sin_port) &&
		    ra == self.sin_addr.s_addr && rp == ntohs(self.sin_port)) {
			*uid = (uid_t)u;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}
