/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an ioctl writes at its argument, from its request number.
 *
 * A request made with the _IOC macros says it: _IOC_READ in its direction
 * means the kernel writes _IOC_SIZE bytes at the argument
 * (include/uapi/asm-generic/ioctl.h). A request with no direction and no
 * size (_IO) takes its argument as a value by that convention and writes
 * nothing, but the requests older than the macros look the same and do
 * write: the terminal's ('T', 0x54), the sockets' (0x89), the block
 * devices' (0x12), the consoles' ('K', 'V') and a few more. Those are in
 * the table below with what they write; one of those families that the
 * table does not know, or whose output has no fixed size (SIOCGIFCONF
 * writes a list behind a pointer, TIOCLINUX as its subcode says), is
 * unknown, and a replay cannot answer it from the log (capture.c).
 */
#include "config.h"

#include <linux/hdreg.h>
#include <linux/loop.h>
#include <linux/serial.h>
#include <linux/vt.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

struct old_ioctl {
	uint16_t req;  /* request number */
	int32_t bytes; /* what it writes at its argument; -1: unknown */
};

/* Sorted by number. Values are x86-64's (include/uapi/asm-generic/ioctls.h,
 * include/uapi/linux/sockios.h, include/uapi/linux/fs.h, kd.h, vt.h). */
static const struct old_ioctl old_ioctls[] = {
	{ 0x0001, 4 },				 /* FIBMAP: the block, in and out */
	{ 0x0002, 4 },				 /* FIGETBSZ */
	{ 0x0301, sizeof(struct hd_geometry) }, /* HDIO_GETGEO */
	{ 0x125d, 0 },				 /* BLKROSET */
	{ 0x125e, 4 },				 /* BLKROGET */
	{ 0x125f, 0 },				 /* BLKRRPART */
	{ 0x1260, 8 },				 /* BLKGETSIZE: unsigned long */
	{ 0x1261, 0 },				 /* BLKFLSBUF */
	{ 0x1262, 0 },				 /* BLKRASET */
	{ 0x1263, 8 },				 /* BLKRAGET */
	{ 0x1264, 0 },				 /* BLKFRASET */
	{ 0x1265, 8 },				 /* BLKFRAGET */
	{ 0x1266, 0 },				 /* BLKSECTSET */
	{ 0x1267, 2 },				 /* BLKSECTGET: unsigned short */
	{ 0x1268, 4 },				 /* BLKSSZGET */
	{ 0x4b31, 1 },				 /* KDGETLED */
	{ 0x4b33, 1 },				 /* KDGKBTYPE */
	{ 0x4b3b, 4 },				 /* KDGETMODE */
	{ 0x4b44, 4 },				 /* KDGKBMODE */
	{ 0x4b64, 1 },				 /* KDGKBLED */
	{ 0x4c00, 0 },				 /* LOOP_SET_FD */
	{ 0x4c01, 0 },				 /* LOOP_CLR_FD */
	{ 0x4c02, 0 },				 /* LOOP_SET_STATUS */
	{ 0x4c03, sizeof(struct loop_info) },	 /* LOOP_GET_STATUS */
	{ 0x4c04, 0 },				 /* LOOP_SET_STATUS64 */
	{ 0x4c05, sizeof(struct loop_info64) }, /* LOOP_GET_STATUS64 */
	{ 0x4c06, 0 },				 /* LOOP_CHANGE_FD */
	{ 0x4c07, 0 },				 /* LOOP_SET_CAPACITY */
	{ 0x4c08, 0 },				 /* LOOP_SET_DIRECT_IO */
	{ 0x4c09, 0 },				 /* LOOP_SET_BLOCK_SIZE */
	{ 0x4c0a, 0 },				 /* LOOP_CONFIGURE */
	{ 0x4c80, 0 },				 /* LOOP_CTL_ADD */
	{ 0x4c81, 0 },				 /* LOOP_CTL_REMOVE */
	{ 0x4c82, 0 },				 /* LOOP_CTL_GET_FREE: its result */
	{ 0x5401, 36 },				 /* TCGETS: the kernel's struct termios
						  * (termbits.h), not glibc's */
	{ 0x5402, 0 },				 /* TCSETS */
	{ 0x5403, 0 },				 /* TCSETSW */
	{ 0x5404, 0 },				 /* TCSETSF */
	{ 0x5405, 18 },				 /* TCGETA: struct termio */
	{ 0x5406, 0 },				 /* TCSETA */
	{ 0x5407, 0 },				 /* TCSETAW */
	{ 0x5408, 0 },				 /* TCSETAF */
	{ 0x5409, 0 },				 /* TCSBRK */
	{ 0x540a, 0 },				 /* TCXONC */
	{ 0x540b, 0 },				 /* TCFLSH */
	{ 0x540c, 0 },				 /* TIOCEXCL */
	{ 0x540d, 0 },				 /* TIOCNXCL */
	{ 0x540e, 0 },				 /* TIOCSCTTY */
	{ 0x540f, 4 },				 /* TIOCGPGRP */
	{ 0x5410, 0 },				 /* TIOCSPGRP */
	{ 0x5411, 4 },				 /* TIOCOUTQ */
	{ 0x5412, 0 },				 /* TIOCSTI */
	{ 0x5413, 8 },				 /* TIOCGWINSZ */
	{ 0x5414, 0 },				 /* TIOCSWINSZ */
	{ 0x5415, 4 },				 /* TIOCMGET */
	{ 0x5416, 0 },				 /* TIOCMBIS */
	{ 0x5417, 0 },				 /* TIOCMBIC */
	{ 0x5418, 0 },				 /* TIOCMSET */
	{ 0x5419, 4 },				 /* TIOCGSOFTCAR */
	{ 0x541a, 0 },				 /* TIOCSSOFTCAR */
	{ 0x541b, 4 },				 /* FIONREAD */
	{ 0x541c, -1 },				 /* TIOCLINUX: as its subcode says */
	{ 0x541d, 0 },				 /* TIOCCONS */
	{ 0x541e, sizeof(struct serial_struct) }, /* TIOCGSERIAL */
	{ 0x541f, 0 },				   /* TIOCSSERIAL */
	{ 0x5420, 0 },				   /* TIOCPKT */
	{ 0x5421, 0 },				   /* FIONBIO */
	{ 0x5422, 0 },				   /* TIOCNOTTY */
	{ 0x5423, 0 },				   /* TIOCSETD */
	{ 0x5424, 4 },				   /* TIOCGETD */
	{ 0x5425, 0 },				   /* TCSBRKP */
	{ 0x5427, 0 },				   /* TIOCSBRK */
	{ 0x5428, 0 },				   /* TIOCCBRK */
	{ 0x5429, 4 },				   /* TIOCGSID */
	{ 0x542e, sizeof(struct serial_rs485) },  /* TIOCGRS485 */
	{ 0x542f, sizeof(struct serial_rs485) },  /* TIOCSRS485: the kernel writes
						    * back what it took */
	{ 0x5432, 24 },				   /* TCGETX: struct termiox */
	{ 0x5433, 0 },				   /* TCSETX */
	{ 0x5434, 0 },				   /* TCSETXF */
	{ 0x5435, 0 },				   /* TCSETXW */
	{ 0x5437, 0 },				   /* TIOCVHANGUP */
	{ 0x5450, 0 },				   /* FIONCLEX */
	{ 0x5451, 0 },				   /* FIOCLEX */
	{ 0x5452, 0 },				   /* FIOASYNC */
	{ 0x5453, 0 },				   /* TIOCSERCONFIG */
	{ 0x5454, 4 },				   /* TIOCSERGWILD */
	{ 0x5455, 0 },				   /* TIOCSERSWILD */
	{ 0x5456, 36 },				   /* TIOCGLCKTRMIOS: struct termios */
	{ 0x5457, 0 },				   /* TIOCSLCKTRMIOS */
	{ 0x5458, -1 },				   /* TIOCSERGSTRUCT: the driver's own */
	{ 0x5459, 4 },				   /* TIOCSERGETLSR */
	{ 0x545a, -1 },				   /* TIOCSERGETMULTI: removed */
	{ 0x545b, 0 },				   /* TIOCSERSETMULTI */
	{ 0x545c, 0 },				   /* TIOCMIWAIT */
	{ 0x545d, sizeof(struct serial_icounter_struct) }, /* TIOCGICOUNT */
	{ 0x5460, 8 },					    /* FIOQSIZE: loff_t */
	{ 0x5600, 4 },					    /* VT_OPENQRY */
	{ 0x5601, sizeof(struct vt_mode) },		    /* VT_GETMODE */
	{ 0x5602, 0 },					    /* VT_SETMODE */
	{ 0x5603, sizeof(struct vt_stat) },		    /* VT_GETSTATE */
	{ 0x5605, 0 },					    /* VT_RELDISP */
	{ 0x5606, 0 },					    /* VT_ACTIVATE */
	{ 0x5607, 0 },					    /* VT_WAITACTIVE */
	{ 0x8901, 0 },					    /* FIOSETOWN */
	{ 0x8902, 0 },					    /* SIOCSPGRP */
	{ 0x8903, 4 },					    /* FIOGETOWN */
	{ 0x8904, 4 },					    /* SIOCGPGRP */
	{ 0x8905, 4 },					    /* SIOCATMARK */
	{ 0x8906, 16 },					    /* SIOCGSTAMP: timeval */
	{ 0x8907, 16 },					    /* SIOCGSTAMPNS: timespec */
	{ 0x8910, sizeof(struct ifreq) },		    /* SIOCGIFNAME */
	{ 0x8912, -1 },					    /* SIOCGIFCONF: a list */
	{ 0x8913, sizeof(struct ifreq) },		    /* SIOCGIFFLAGS */
	{ 0x8915, sizeof(struct ifreq) },		    /* SIOCGIFADDR */
	{ 0x8917, sizeof(struct ifreq) },		    /* SIOCGIFDSTADDR */
	{ 0x8919, sizeof(struct ifreq) },		    /* SIOCGIFBRDADDR */
	{ 0x891b, sizeof(struct ifreq) },		    /* SIOCGIFNETMASK */
	{ 0x891d, sizeof(struct ifreq) },		    /* SIOCGIFMETRIC */
	{ 0x891f, sizeof(struct ifreq) },		    /* SIOCGIFMEM */
	{ 0x8921, sizeof(struct ifreq) },		    /* SIOCGIFMTU */
	{ 0x8927, sizeof(struct ifreq) },		    /* SIOCGIFHWADDR */
	{ 0x8933, sizeof(struct ifreq) },		    /* SIOCGIFINDEX */
	{ 0x8942, sizeof(struct ifreq) },		    /* SIOCGIFTXQLEN */
	{ 0x8970, sizeof(struct ifreq) },		    /* SIOCGIFMAP */
};

/* Type bytes of the families older than the _IOC encoding (Documentation/
 * userspace-api/ioctl/ioctl-number.rst): FIBMAP's 0x00, floppies 0x02,
 * HDIO 0x03, block 0x12, SCSI generic 0x22, 'K', 'L', CD-ROM 'S', 'T',
 * 'V', sockets 0x89, wireless 0x8b. */
static int old_family(unsigned type)
{
	switch (type) {
	case 0x00:
	case 0x02:
	case 0x03:
	case 0x12:
	case 0x22:
	case 'K':
	case 'L':
	case 'S':
	case 'T':
	case 'V':
	case 0x89:
	case 0x8b:
		return 1;
	default:
		return 0;
	}
}

long rec_ioctl_out(uint64_t request)
{
	uint32_t req = (uint32_t)request;
	size_t lo = 0, hi = sizeof(old_ioctls) / sizeof(old_ioctls[0]);

	if (req >> 30 & 2) /* _IOC_READ: _IOC_SIZE bytes */
		return (long)(req >> 16 & 0x3fff);
	if (req >> 16)
		return 0; /* _IOW, or _IO with a size: the kernel only reads */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (old_ioctls[mid].req == req)
			return old_ioctls[mid].bytes;
		if (old_ioctls[mid].req < req)
			lo = mid + 1;
		else
			hi = mid;
	}
	return old_family(req >> 8 & 0xff) ? -1 : 0;
}
