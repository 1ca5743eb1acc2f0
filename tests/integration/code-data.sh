#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Data in the code (docs/preemption.md "Data in the code"): the tick
# patcher decodes executable sections linearly, and hand-written assembly
# keeps constants there (OpenSSL's SHA-256 and SHA-512 round constants,
# AES and whirlpool tables). A jump or an int3 written over them changed
# the data: under hermit, SHA-256 of anything was wrong in python3's
# hashlib, `openssl dgst` and node, and `hermit run --chaos` of node hung
# (a chaos pick in an instruction decoded across padlock_capability's
# first one lost %rbx).
#
# - tests/guests/codedata: a table after a function, taken and read
#   rip-relative, and a blob whose decode runs into the next function:
#   what it prints under run and three chaos seeds is what it prints
#   natively.
# - python3's hashlib (OpenSSL's libcrypto), `openssl dgst` and `openssl
#   enc` (where installed) and node's crypto (where installed): digests
#   and ciphertexts of 200 KB under run and a chaos seed are those of a
#   native run.
. "${TESTS_SRCDIR:?TESTS_SRCDIR must name the tests folder}/lib.sh" || exit 99

export HERMIT_DATA_DIR="$WORK/data"
TEST_TIMEOUT=180

# native_vs NAME CMD...: CMD run natively, then under `hermit run` and
# `hermit run --chaos --seed 1`, prints the same bytes.
native_vs() {
	name=$1
	shift
	"$@" >"$WORK/$name.want" 2>"$WORK/$name.want.err" ||
		{ cat "$WORK/$name.want.err" >&2; fail "$name: failed outside hermit"; }
	hm "$WORK/$name.run" run -- "$@" ||
		{ cat "$WORK/$name.run.err" >&2; fail "$name: hermit run exited $?"; }
	diff -u "$WORK/$name.want" "$WORK/$name.run" ||
		{ cat "$WORK/$name.run.err" >&2; fail "$name: other output under hermit run than natively"; }
	# (its debug log says how a guest process ended, should one end
	# early: seen twice in `make -j2 check`, openssl's first dgst printing
	# nothing, not reproduced since)
	hm "$WORK/$name.chaos" run --log=debug --chaos --seed 1 -- "$@"
	st=$?
	[ "$st" = 0 ] || { tail -40 "$WORK/$name.chaos.err" >&2; fail "$name: hermit run --chaos exited $st"; }
	diff -u "$WORK/$name.want" "$WORK/$name.chaos" || {
		grep -E 'killed|exited [1-9]|signal|diverg|spin|warn|error' "$WORK/$name.chaos.err" |
			head -40 >&2
		fail "$name: other output under hermit run --chaos --seed 1 than natively"
	}
}

(
	native_vs codedata "$GUESTS/codedata"
	for seed in 2 3; do
		hm "$WORK/codedata.s$seed" run --chaos --seed $seed -- "$GUESTS/codedata" ||
			fail "codedata: --chaos --seed $seed exited $?"
		diff -u "$WORK/codedata.want" "$WORK/codedata.s$seed" ||
			fail "codedata: other output under --chaos --seed $seed"
	done
) || exit 1

head -c 200000 "$HERMIT" >"$WORK/input"

(
	command -v python3 >/dev/null 2>&1 || { echo "python3 part skipped: no python3" >&2; exit 0; }
	native_vs hashlib python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
for h in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3_256", "sha3_512", "blake2b", "blake2s"):
    print(h, hashlib.new(h, d).hexdigest())
print("pbkdf2", hashlib.pbkdf2_hmac("sha256", b"pw", b"salt", 2000).hex())
' "$WORK/input"
) || exit 1

(
	command -v openssl >/dev/null 2>&1 || { echo "openssl part skipped: no openssl" >&2; exit 0; }
	cat >"$WORK/ossl.sh" <<'EOF'
f=$1
for d in sha1 sha256 sha512 sha3-256 md5 blake2b512 sm3; do
	{ openssl dgst -$d "$f" || echo "openssl dgst -$d exited $?" >&2; } | sed 's/.*= //'
done
for c in aes-128-cbc aes-256-ctr aes-256-gcm chacha20 camellia-256-cbc aria-128-cbc des-ede3-cbc; do
	openssl enc -$c -K 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \
		-iv 000102030405060708090a0b0c0d0e0f -in "$f" 2>/dev/null | od -An -tx1 | tail -3
done
EOF
	native_vs openssl sh "$WORK/ossl.sh" "$WORK/input"
) || exit 1

(
	command -v node >/dev/null 2>&1 || { echo "node part skipped: no node" >&2; exit 0; }
	native_vs node node -e '
const c = require("crypto"), d = require("fs").readFileSync(process.argv[1]);
const k = Buffer.alloc(32, 1), iv = Buffer.alloc(16, 2), out = [];
for (const h of ["md5", "sha1", "sha256", "sha512", "sha3-256"])
	out.push(h + " " + c.createHash(h).update(d).digest("hex"));
for (const a of ["aes-256-cbc", "aes-256-ctr", "chacha20"]) {
	const ci = c.createCipheriv(a, k, iv);
	out.push(a + " " + c.createHash("sha256").update(Buffer.concat([ci.update(d), ci.final()])).digest("hex"));
}
const e = c.createECDH("prime256v1");
e.setPrivateKey(Buffer.alloc(32, 3));
out.push("p256 " + e.getPublicKey("hex"));
console.log(out.join("\n"));
' "$WORK/input"
) || exit 1
exit 0
