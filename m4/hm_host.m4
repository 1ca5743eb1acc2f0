dnl SPDX-License-Identifier: BSD-3-Clause
dnl HM_CHECK_HOST: Hermit traces x86-64 Linux programs and nothing else.
AC_DEFUN([HM_CHECK_HOST], [
  case "$host" in
    x86_64-*-linux*) ;;
    *) AC_MSG_ERROR([hermit runs on x86_64 Linux only, not on '$host']) ;;
  esac
  AC_CHECK_HEADERS([sys/ptrace.h linux/seccomp.h linux/filter.h sys/prctl.h], [],
    [AC_MSG_ERROR([a Linux kernel header is missing: install linux-libc-dev])])
])
