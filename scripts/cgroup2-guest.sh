#!/usr/bin/env bash
# Runs test binaries inside a Debian 6.1 kernel booted under qemu (TCG) with
# only cgroup v2 mounted, so shootout's v2 limits meet a real v2 kernel
# (this machine's own kernel binds every controller to v1). The host's /
# is shared read-only over virtio-9p and the guest chroots into it, with
# tmpfs where it must write and a virtio disk for io.max to cap.
#
#   scripts/cgroup2-guest.sh [NAME=VALUE...] TEST_BINARY [TEST FLAGS...] [--- [NAME=VALUE...] TEST_BINARY [TEST FLAGS...]]...
#
# One boot runs the binaries in turn (a boot is some 20 s of an emulated
# kernel), each with its own environment (NAME=VALUE, beside CI), on a
# freshly made disk and tmpfs, as if it had the guest to itself. Each
# binary's output is printed as it comes and kept in TEST_BINARY.log;
# every binary runs whatever the others did, and the script fails, naming
# each binary that failed or did not finish.
set -euo pipefail
kver=$(ls /lib/modules | grep -E '^[0-9.]+-[0-9]+-amd64$' | sort -V | tail -1 || true)
kernel=/boot/vmlinuz-$kver
for need in qemu-system-x86_64 busybox "$kernel"; do
	if ! command -v "$need" >/dev/null && [ ! -e "$need" ]; then
		echo "cgroup2-guest: $need missing; fix: apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static" >&2
		exit 2
	fi
done

# quote makes one word for the guest's shell, whatever it holds
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# the runs: names[i] is the binary's name, cmds[i] its command line for
# the guest's shell (its environment, the binary, its flags), logs[i]
# where its output is kept
names=() cmds=() logs=()
while [ $# -gt 0 ]; do
	envs="" cmd=""
	while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
		envs="$envs $(quote "$1")"
		shift
	done
	[ $# -gt 0 ] && [ "$1" != --- ] || { echo "cgroup2-guest: a test binary expected after '${envs# }'" >&2; exit 2; }
	bin=$(readlink -f "$1")
	[ -x "$bin" ] || { echo "cgroup2-guest: $1 is not an executable test binary" >&2; exit 2; }
	shift
	while [ $# -gt 0 ] && [ "$1" != --- ]; do
		cmd="$cmd $(quote "$1")"
		shift
	done
	[ $# -eq 0 ] || shift # the ---
	names+=("$(basename "$bin")")
	cmds+=("$envs $(quote "$bin")$cmd")
	logs+=("$bin.log")
done
[ ${#names[@]} -gt 0 ] || { echo "usage: $0 [NAME=VALUE...] TEST_BINARY [TEST FLAGS...] [--- ...]" >&2; exit 2; }

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
# the work disk, made here: mkfs inside the guest takes 10 s of it
truncate -s 1G "$work/disk.img"
mkfs.ext4 -q -F "$work/disk.img"
# the kernel uncompressed: qemu boots an ELF vmlinux at its PVH entry,
# where the bzImage spends some 25 s of emulated CPU unpacking itself
# (its xz stream starts after the setup code)
boot_kernel=$kernel
off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$kernel" | head -1 | cut -d: -f1 || true)
if [ -n "$off" ] && tail -c +$((off + 1)) "$kernel" >"$work/vmlinux.xz" &&
	xz -dc --single-stream "$work/vmlinux.xz" >"$work/vmlinux" 2>/dev/null &&
	[ "$(head -c 4 "$work/vmlinux" | tail -c 3)" = ELF ]; then
	boot_kernel=$work/vmlinux
fi

# initrd writes the guest's init for the runs given by index and packs it.
# Between runs the work disk is made again and the tmpfs mounted anew, so
# that no binary sees what another left; one that cannot be unmounted (a
# process of the last run still holds it) is said, and the run goes on.
initrd() {
	local i
	cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
ifconfig lo 127.0.0.1 up # the servers listen on loopback
for m in /mod/*.ko; do insmod $m 2>/dev/null || echo "insmod $m failed"; done
# cache=loose keeps what the guest read of the host's files in its page
# cache: with none, every exec read its binary and libraries again over
# 9p (fio --version took 20 s, 3 s with loose). The host's tree is only
# read, and what the guest reads of it (the built binaries, /usr, /etc)
# does not change while it runs.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=@CACHE@ host /host
for d in proc sys dev; do mount --bind /$d /host/$d; done
mount -t cgroup2 none /host/sys/fs/cgroup
# as systemd leaves a v2 host: the controllers handed down from the root
echo "+cpuset +cpu +io +memory +pids" >/host/sys/fs/cgroup/cgroup.subtree_control
mounted() { grep -q " $1 " /proc/mounts; }
# the disk is emptied between runs
fresh() {
	if mounted /host/tmp/disk; then umount /host/tmp/disk || echo "guest: /tmp/disk still in use after the last run"; fi
	for d in tmp run var/tmp; do
		if mounted /host/$d; then umount /host/$d || echo "guest: /$d still in use after the last run"; fi
		mount -t tmpfs -o mode=1777 tmpfs /host/$d
	done
	mkdir -p /host/run/shootout /host/tmp/disk
	[ -b /dev/vda ] || return 0
	mount /dev/vda /host/tmp/disk && rm -rf /host/tmp/disk/* /host/tmp/disk/.[!.]*
}
up() { cut -d' ' -f1 /proc/uptime; }
echo "guest: kernel $(uname -r) up after $(up) s, cgroup2 controllers: $(cat /host/sys/fs/cgroup/cgroup.controllers), handed down: $(cat /host/sys/fs/cgroup/cgroup.subtree_control)"
# run NAME COMMAND: the markers the host splits the console by, with the
# guest's uptime, and the command's exit status
run() {
	name=$1; shift
	fresh
	echo "GUEST-BEGIN $name $(up)"
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TMPDIR=/tmp/disk "$@"
	rc=$?
	printf '\nGUEST-END %s rc=%d %s\n' "$name" $rc "$(up)"
}
INIT
	for i in "$@"; do
		echo "run $(quote "${names[$i]}") CI=$(quote "${CI:-}")${cmds[$i]}" >>"$root/init"
	done
	echo "sync; poweroff -f" >>"$root/init"
	sed -i "s/@CACHE@/${GUEST_9P_CACHE:-loose}/" "$root/init"
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"
}

# boot runs the guest once, its console shown and kept in $1. A guest
# whose console stays silent for GUEST_SILENCE seconds is stopped: once in
# some thirty runs the emulated kernel stopped mid-test (no output, not
# even go test's own timeout panic) until the overall timeout.
boot() {
	local log=$1 last=-1 size quiet=0
	: >"$log" # before tail opens it
	timeout --kill-after=10 "${GUEST_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg -smp 2 -m 3072 -nographic -no-reboot \
		-kernel "$boot_kernel" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 rdinit=/init panic=-1 quiet" -nic none \
		-virtfs local,path=/,mount_tag=host,security_model=passthrough,readonly=on,multidevs=remap \
		-drive file="$work/disk.img",if=virtio,format=raw,cache=none </dev/null >>"$log" 2>&1 &
	qemu=$!
	tail -n +1 -f --pid=$qemu "$log" &
	while kill -0 $qemu 2>/dev/null; do
		sleep 1
		size=$(stat -c %s "$log")
		if [ "$size" != "$last" ]; then
			last=$size quiet=0
			continue
		fi
		quiet=$((quiet + 1))
		if [ $quiet -ge "${GUEST_SILENCE:-360}" ]; then
			echo "cgroup2-guest: the guest printed nothing for ${quiet}s; stopping it" >&2
			kill $qemu 2>/dev/null || true
			break
		fi
	done
	wait $qemu || true
	silent=$quiet
}

# split keeps each run's output from console log $1 in its own log, and
# sets rcs[i] (empty for a run that did not end) and secs[i]
declare -A rcs=() secs=()
split() {
	local console=$1 i begin end
	for i in "${!names[@]}"; do
		begin=$(grep -a -o "GUEST-BEGIN ${names[$i]} [0-9.]*" "$console" | tail -1 | cut -d' ' -f3 || true)
		[ -n "$begin" ] || continue
		awk -v b="GUEST-BEGIN ${names[$i]} " -v e="GUEST-END ${names[$i]} rc=" \
			'index($0, b) { on = 1; next } index($0, e) { on = 0 } on' "$console" >"${logs[$i]}"
		end=$(grep -a -o "GUEST-END ${names[$i]} rc=[0-9]* [0-9.]*" "$console" | tail -1 | cut -d' ' -f3,4 || true)
		[ -n "$end" ] || continue
		rcs[$i]=${end%% *}
		rcs[$i]=${rcs[$i]#rc=}
		secs[$i]=$(awk -v b="$begin" -v e="${end#* }" 'BEGIN { printf "%.0f", e - b }')
	done
}

log=$work/console.log
initrd "${!names[@]}"
boot "$log"
split "$log"
left=()
for i in "${!names[@]}"; do [ -n "${rcs[$i]:-}" ] || left+=("$i"); done
if [ ${#left[@]} -gt 0 ] && [ "$silent" -ge "${GUEST_SILENCE:-360}" ] && ! grep -a -q -e '--- FAIL' -e '^panic:' "$log"; then
	# a silent guest with no failure printed: the emulator, most likely;
	# said loudly, and the runs that did not end run once more in a new
	# boot (a second silence fails)
	echo "cgroup2-guest: no failure was printed before the silence; running what did not end once more; the silent run's last lines:" >&2
	tail -5 "$log" | sed 's/^/cgroup2-guest: silent run: /' >&2
	log=$work/console.again.log
	initrd "${left[@]}"
	boot "$log"
	split "$log"
fi
grep -a -h -o 'guest: kernel [^,]*' "$work"/console*.log | head -1 | sed 's/^guest:/cgroup2-guest:/' >&2 || true
failed=()
for i in "${!names[@]}"; do
	if [ -z "${rcs[$i]:-}" ]; then
		echo "cgroup2-guest: ${names[$i]} did not finish; its output: ${logs[$i]}" >&2
		failed+=("${names[$i]}")
	elif [ "${rcs[$i]}" != 0 ]; then
		echo "cgroup2-guest: ${names[$i]} FAILED (exit ${rcs[$i]}) in ${secs[$i]} s; its output: ${logs[$i]}" >&2
		failed+=("${names[$i]}")
	else
		echo "cgroup2-guest: ${names[$i]} ok in ${secs[$i]} s; its output: ${logs[$i]}" >&2
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "cgroup2-guest: failed: ${failed[*]}" >&2
	exit 1
fi
