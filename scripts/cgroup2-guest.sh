#!/usr/bin/env bash
# Runs test binaries inside a Debian 6.1 kernel booted under qemu (TCG) with
# only cgroup v2 mounted, so shootout's v2 limits meet a real v2 kernel
# (this machine's own kernel binds every controller to v1). The host's /
# is shared read-only over virtio-9p and the guest chroots into it, with
# tmpfs where it must write and a virtio disk for io.max to cap.
#
#   scripts/cgroup2-guest.sh TEST_BINARY [TEST FLAGS...]
#
# Exits with the tests' own status (from the guest's last console line).
set -euo pipefail
kver=$(ls /lib/modules | grep -E '^[0-9.]+-[0-9]+-amd64$' | sort -V | tail -1 || true)
kernel=/boot/vmlinuz-$kver
for need in qemu-system-x86_64 busybox "$kernel"; do
	if ! command -v "$need" >/dev/null && [ ! -e "$need" ]; then
		echo "cgroup2-guest: $need missing; fix: apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static" >&2
		exit 2
	fi
done
test_bin=$(readlink -f "$1"); shift
work=$(mktemp -d /var/tmp/shootout-cgroup2.XXXXXX)
qemu=
# the guest runs in the background, where a script's Ctrl-C does not reach
# it: stop it on the way out, whatever ends the script
trap '{ [ -z "$qemu" ] || kill $qemu 2>/dev/null || true; }; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,host,mod}
cp "$(command -v busybox)" "$root/bin/busybox"

# the modules the guest needs, each after what it depends on (modules.dep)
declare -A seen=()
order=()
add() {
	local m=$1 dep
	[ -n "${seen[$m]:-}" ] && return
	seen[$m]=1
	for dep in $(awk -F': ' -v m="$m" '$1==m {print $2}' /lib/modules/$kver/modules.dep); do add "$dep"; done
	order+=("$m")
}
for name in virtio_pci 9pnet_virtio 9p virtio_blk ext4 crc32c_generic; do
	path=$(awk -F: -v n="/$name.ko" 'index($1, n) && substr($1, length($1)-length(n)+1)==n {print $1; exit}' /lib/modules/$kver/modules.dep)
	[ -n "$path" ] || { echo "cgroup2-guest: module $name not in $kver" >&2; exit 2; }
	add "$path"
done
i=0
for m in "${order[@]}"; do
	cp "/lib/modules/$kver/$m" "$root/mod/$(printf %02d $i)-$(basename "$m")"
	i=$((i + 1))
done

args=""
for a in "$@"; do args="$args '$a'"; done
cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
ifconfig lo 127.0.0.1 up # the servers listen on loopback
for m in /mod/*.ko; do insmod \$m 2>/dev/null || echo "insmod \$m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 host /host
for d in proc sys dev; do mount --bind /\$d /host/\$d; done
mount -t cgroup2 none /host/sys/fs/cgroup
# as systemd leaves a v2 host: the controllers handed down from the root
echo "+cpuset +cpu +io +memory +pids" >/host/sys/fs/cgroup/cgroup.subtree_control
for d in tmp run var/tmp; do mount -t tmpfs -o mode=1777 tmpfs /host/\$d; done
mkdir -p /host/run/shootout /host/tmp/disk
if [ -b /dev/vda ]; then chroot /host mkfs.ext4 -q -F /dev/vda && mount /dev/vda /host/tmp/disk; fi
echo "guest: kernel \$(uname -r), cgroup2 controllers: \$(cat /host/sys/fs/cgroup/cgroup.controllers), handed down: \$(cat /host/sys/fs/cgroup/cgroup.subtree_control)"
chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TMPDIR=/tmp/disk CI=\${CI:-} SHOOTOUT_TEST_BIN=\${SHOOTOUT_TEST_BIN:-} $test_bin$args
echo "GUEST-RC=\$?"
sync; poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"
truncate -s 1G "$work/disk.img"

# boot runs the guest once, its console shown and kept in $1. A guest
# whose console stays silent for GUEST_SILENCE seconds is stopped: once in
# some thirty runs the emulated kernel stopped mid-test (no output, not
# even go test's own timeout panic) until the overall timeout.
boot() {
	local log=$1 last=-1 size quiet=0
	timeout --kill-after=10 "${GUEST_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg -smp 2 -m 3072 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 rdinit=/init panic=-1 quiet CI=${CI:-} SHOOTOUT_TEST_BIN=${SHOOTOUT_TEST_BIN:-}" \
		-virtfs local,path=/,mount_tag=host,security_model=passthrough,readonly=on,multidevs=remap \
		-drive file="$work/disk.img",if=virtio,format=raw,cache=none </dev/null >"$log" 2>&1 &
	qemu=$!
	tail -n +1 -f --pid=$qemu "$log" &
	while kill -0 $qemu 2>/dev/null; do
		sleep 5
		size=$(stat -c %s "$log")
		if [ "$size" != "$last" ]; then
			last=$size quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		if [ $quiet -ge "${GUEST_SILENCE:-360}" ]; then
			echo "cgroup2-guest: the guest printed nothing for ${quiet}s; stopping it" >&2
			kill $qemu 2>/dev/null || true
			break
		fi
	done
	wait $qemu || true
	silent=$quiet
}

# status is the tests' exit status from the guest's console, empty if none
status() { { grep -a -o 'GUEST-RC=[0-9]*' "$1" || true; } | tail -1 | cut -d= -f2; }

log=$work/console.log
boot "$log"
rc=$(status "$log")
if [ -z "$rc" ] && [ "$silent" -ge "${GUEST_SILENCE:-360}" ] && ! grep -a -q -e '--- FAIL' -e '^panic:' "$log"; then
	# a silent guest with no failure printed: the emulator, most likely;
	# said loudly and run once more (a second silence fails)
	echo "cgroup2-guest: no failure was printed before the silence; running the guest once more; the silent run's last lines:" >&2
	tail -5 "$log" | sed 's/^/cgroup2-guest: silent run: /' >&2
	boot "$work/console.again.log"
	log=$work/console.again.log
	rc=$(status "$log")
fi
if [ -z "$rc" ]; then
	echo "cgroup2-guest: the guest ended without the tests' status" >&2
	exit 1
fi
exit "$rc"
