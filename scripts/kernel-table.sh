#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel-table.sh - README's table of what each kernel read, as tests/kernel/block-sizes-kernel.sh
# found (tests/kernel/results/KERNEL.txt)
#
# Usage: kernel-table.sh            print the table (Markdown)
#        kernel-table.sh --update   write it into README.md, between its kernel-table markers
# tests/doc/kernel-table.sh checks that README.md holds what this prints.
set -eu
cd "$(dirname "$0")/.."
results=tests/kernel/results

# cell KERNEL FS TREE: what the kernel did with e2verity-sealed files of that pair
cell()
{
	v=$(awk -v fs="$2" -v t="$3" '$1 == fs && $2 == t { $1 = ""; $2 = ""; sub(/^  /, ""); print }' \
		"$results/$1.txt")
	case $v in
	'') echo "not tested" ;;
	reads) echo "reads" ;;
	*) echo "$v" ;;
	esac
}

# enabled KERNEL FS TREE: what `fsverity enable` did there, and check after it
enabled()
{
	v=$(awk -v fs="$2" -v t="$3" '$1 == "enable" && $2 == fs && $3 == t { print $5 }' \
		"$results/$1.txt" | sort -u | tr '\n' ' ')
	case $v in
	'') echo "" ;;
	'seals ') echo "; \`fsverity enable\` seals, \`check\` agrees" ;;
	*) echo "; \`fsverity enable\`: refused" ;;
	esac
}

table()
{
	echo "| kernel (as tested) | pages | fs block | tree 1024 | tree 2048 | tree 4096 |"
	echo "|---|---|---|---|---|---|"
	for f in "$results"/*.txt; do
		k=$(basename "$f" .txt)
		desc=$(sed -n "1s/^# $k: //p" "$f")
		arch=${desc%%,*}
		pages=$(echo "$desc" | sed -n 's/.*, \([0-9]*\)-byte pages.*/\1/p')
		for fs in 1024 2048 4096; do
			row="| $k ($arch) | $((pages / 1024)) KiB | $fs |"
			for t in 1024 2048 4096; do
				if [ "$t" -gt "$fs" ]; then
					row="$row — |"
				else
					row="$row $(cell "$k" "$fs" "$t")$(enabled "$k" "$fs" "$t") |"
				fi
			done
			echo "$row"
		done
	done
}

if [ "${1:-}" = --update ]; then
	table >README.table.tmp
	awk -v tf=README.table.tmp '
		/<!-- kernel-table begin/ { print; while ((getline l < tf) > 0) print l; skip = 1; next }
		/<!-- kernel-table end/ { skip = 0 }
		!skip' README.md >README.md.tmp
	rm -f README.table.tmp
	mv README.md.tmp README.md
else
	table
fi
