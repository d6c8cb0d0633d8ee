#!/usr/bin/env bash
# Times `dpaudit estimate` on two tables — 10⁶ classic rows
# (every classic estimator) and a one-run table of 10⁵ canaries (every
# one-run estimator) — for two revisions, alternating A B A B so that a
# change in the machine's load hits both alike.
#
#   scripts/bench-estimate.sh [REV_A] [REV_B] [PAIRS]
#
# REV_A defaults to HEAD~1, REV_B to the work tree, PAIRS to 5. Prints per
# table the median and range of wall and CPU (user + sys) seconds of each
# side, the median and [min, max] of the per-pair ratios B/A, and the load
# average before and after. The tables are written once, from a fixed
# seed, with python3's standard library.
set -euo pipefail
cd "$(dirname "$0")/.."
rev_a=${1:-HEAD~1}
rev_b=${2:-worktree}
pairs=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() { # build REV OUT
	if [[ $1 == worktree ]]; then
		go build -o "$2" ./cmd/dpaudit
	else
		mkdir -p "$tmp/src-$1"
		git archive "$1" | tar -x -C "$tmp/src-$1"
		(cd "$tmp/src-$1" && go build -o "$2" ./cmd/dpaudit)
	fi
}
build "$rev_a" "$tmp/a"
build "$rev_b" "$tmp/b"

python3 - "$tmp" <<'EOF'
import random, sys
d = sys.argv[1]
random.seed(2)
with open(d + '/classic.csv', 'w') as f:
    f.write('member,score\n')
    for i in range(1000000):
        m = i % 2
        f.write('%d,%.6f\n' % (m, random.gauss(1.0 * m, 1)))
with open(d + '/onerun.csv', 'w') as f:
    f.write('canary,member,score\n')
    for i in range(100000):
        m = random.randint(0, 1)
        f.write('%d,%d,%.6f\n' % (i, m, random.gauss(2.0 * m, 1)))
EOF

echo "load before: $(uptime)"
for table in classic onerun; do
	: >"$tmp/$table.times"
	for _ in $(seq "$pairs"); do
		for side in a b; do
			/usr/bin/time -f "$side %e %U %S" -a -o "$tmp/$table.times" \
				"$tmp/$side" estimate "$tmp/$table.csv" --claim-epsilon 1 >/dev/null
		done
	done
	python3 - "$tmp/$table.times" "$table" "$rev_a" "$rev_b" <<'EOF'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l[:2] in ('a ', 'b ')]
a = [(float(w), float(u) + float(s)) for side, w, u, s in rows if side == 'a']
b = [(float(w), float(u) + float(s)) for side, w, u, s in rows if side == 'b']
def show(name, xs):
    return '%s median %.3f s [%.3f, %.3f]' % (name, st.median(xs), min(xs), max(xs))
print('%s (A = %s, B = %s, %d pairs)' % (sys.argv[2], sys.argv[3], sys.argv[4], len(a)))
for k, what in ((0, 'wall'), (1, 'cpu')):
    ra = [x[k] for x in a]; rb = [x[k] for x in b]
    ratio = [y / x for x, y in zip(ra, rb)]
    print('  %-4s %s | %s | B/A median %.3f [%.3f, %.3f]' % (what, show('A', ra), show('B', rb), st.median(ratio), min(ratio), max(ratio)))
EOF
done
echo "load after: $(uptime)"
