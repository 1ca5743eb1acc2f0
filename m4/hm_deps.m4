dnl SPDX-License-Identifier: BSD-3-Clause
dnl HM_DEPENDENCIES: every library Hermit builds on; a missing one stops
dnl configure with the Debian package that provides it.
AC_DEFUN([HM_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 not found: install the Debian package $3])])
])
AC_DEFUN([HM_DEPENDENCIES], [
  PKG_PROG_PKG_CONFIG
  HM_REQUIRE_PKG([SECCOMP], [libseccomp >= 2.5], [libseccomp-dev])
  HM_REQUIRE_PKG([LZMA], [liblzma], [liblzma-dev])
  HM_REQUIRE_PKG([CRYPTO], [libcrypto], [libssl-dev])
  HM_REQUIRE_PKG([XXHASH], [libxxhash], [libxxhash-dev])
  HM_REQUIRE_PKG([ELF], [libelf], [libelf-dev])
  HM_REQUIRE_PKG([UNWIND], [libunwind-generic], [libunwind-dev])
  HM_REQUIRE_PKG([CJSON], [libcjson], [libcjson-dev])
  HM_REQUIRE_PKG([CMOCKA], [cmocka], [libcmocka-dev])
  dnl Debian 12's libdwarf-dev ships no .pc file.
  AC_CHECK_HEADER([libdwarf/libdwarf.h], [],
    [AC_MSG_ERROR([libdwarf.h not found: install the Debian package libdwarf-dev])])
  dnl libdwarf needs zlib (libelf-dev brings zlib1g-dev); dwarf/symfile.c
  dnl uses its crc32 for .gnu_debuglink too.
  AC_CHECK_LIB([dwarf], [dwarf_init_b], [DWARF_LIBS="-ldwarf -lz"],
    [AC_MSG_ERROR([libdwarf not found: install the Debian package libdwarf-dev])], [$ELF_LIBS -lz])
  DWARF_CFLAGS="-I/usr/include/libdwarf"
  AC_SUBST([DWARF_CFLAGS])
  AC_SUBST([DWARF_LIBS])
  dnl Zydis decodes x86 for the instruction map: a maintained decoder beats
  dnl a hand-written opcode table. Debian 12's libzydis-dev ships no .pc.
  AC_CHECK_HEADER([Zydis/Zydis.h], [],
    [AC_MSG_ERROR([Zydis.h not found: install the Debian package libzydis-dev])])
  AC_CHECK_LIB([Zydis], [ZydisDecoderInit], [ZYDIS_LIBS="-lZydis"],
    [AC_MSG_ERROR([libZydis not found: install the Debian package libzydis-dev])])
  AC_SUBST([ZYDIS_CFLAGS])
  AC_SUBST([ZYDIS_LIBS])
  AC_CHECK_LIB([pthread], [pthread_create], [], [AC_MSG_ERROR([libpthread not found])])
])
