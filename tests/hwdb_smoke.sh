#!/bin/sh
# hwdb / `scaleplan hw` smoke test: show, list, unknown ids, overlays, and `hw check` on a broken copy
# naming each broken cell.  Run by tools/run_tests.sh with SCALEPLAN set.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
DATA=$(cd "$(dirname "$0")/../hwdb/data" && pwd)

# the node with its parts and their sources, from any directory (tables are compiled in)
(cd / && "$SP" hw show c4140-m) >"$tmp/out" 2>&1 || no "hw show c4140-m from /"
has "system c4140-m"; has "4 x V100-SXM2-16GB"; has "4 x pcie3-x16"; has "2 x Xeon Gold 6148"; has "384 GB"
has "source         refdata/seed_facts.md"; has "Intel ARK Xeon Gold 6148"; has "NVIDIA Tesla V100 datasheet"
[ "$(grep -c 'source' "$tmp/out")" -ge 5 ] || no "c4140-m: a source for the node and each part"
expect 0 "$SP" hw show C4140-K;   has "1 x pcie3-x16"; has "Xeon Silver 4116"
expect 0 "$SP" hw show h100-80gb-hbm3; has "gpu H100-SXM5-80GB"
expect 0 "$SP" hw show testbed-h200x4; has "4 x H200-SXM-141GB"; has "testbed-h200-cpu64"

# unknown ids suggest the nearest
expect 1 "$SP" hw show c4140m;    has "unknown id 'c4140m'"; has "did you mean c4140-m"
expect 1 "$SP" hw show dgx-a1OO;  has "did you mean"
expect 0 "$SP" hw list gpus;      has "H200-SXM-141GB"; has "B200"
expect 0 "$SP" hw list systems;   has "xe9680-h100"; has "149,000"; has "3,250,000/unit"; has "6.88"; has "estimate"
# columns follow their widest cell: the last column starts at the same offset on every row (the
# scaleplan-train stack row was pushed out of line)
aligned() { awk -v h="$1" 'NR == 1 { off = index($0, h); next } /^[( ]/ { next }
	substr($0, off - 1, 1) != " " || substr($0, off, 1) == " " { bad = 1; print "misaligned: " $0 } END { exit bad || !off }' "$tmp/out"; }
aligned "price/rent source" || no "hw list systems: columns aligned"
expect 0 "$SP" hw list stacks;    has "scaleplan-train"
aligned "framework" || no "hw list stacks: columns aligned"
expect 0 "$SP" hw list cpus;      has "GCP A3 Ultra and A4 host (Emerald Rapids)"
aligned "vendor" || no "hw list cpus: columns aligned"
expect 0 "$SP" hw list gpus;      has "B300-GB300-288GB"
aligned "nvlink" || no "hw list gpus: columns aligned"
expect 0 "$SP" hw show gb200-nvl72; has "nvlink domain  72 GPUs = 18 nodes of 4"; has "3,250,000 USD (press, 2024) per unit of 18 nodes (72 GPUs)"
has "price source   analyst figures per GB200 NVL72 rack: Morgan Stanley"
expect 0 "$SP" hw show aws-p5;    has "provider       AWS"; has "on demand 6.88"; has "rent source    AWS EC2 on-demand"
expect 0 "$SP" hw list;           has "== stacks =="
expect 1 "$SP" hw list gpuz;      has "unknown kind 'gpuz'"
expect 1 "$SP" hw frob;           has "unknown subcommand"
expect 0 "$SP" --version;         has "scaleplan"
expect 0 "$SP" --help;            has "hw"
expect 1 "$SP" hx;                has "did you mean 'hw'"

# a good copy of the shipped tables checks clean
mkdir "$tmp/good" && cp "$DATA"/*.csv "$tmp/good/"
expect 0 "$SP" hw check "$tmp/good"; has "ok"

# a broken copy: every broken cell is named by file:line:column(name)
mkdir "$tmp/bad" && cp "$DATA"/*.csv "$tmp/bad/"
gl=$(grep -n '^V100-SXM2-16GB,' "$DATA/gpus.csv" | cut -d: -f1)
sl=$(grep -n '^c4140-m,' "$DATA/systems.csv" | cut -d: -f1)
cl=$(grep -n '^Xeon Gold 6148,' "$DATA/cpus.csv" | cut -d: -f1)
sed -i "${gl}s/,15.7e12,/,15.7 TFLOPS,/" "$tmp/bad/gpus.csv"
sed -i "${sl}s/,V100-SXM2-16GB,/,V100-SXM2-61GB,/" "$tmp/bad/systems.csv"
sed -i "${cl}s/,150,/,-150,/" "$tmp/bad/cpus.csv"
hl=$(grep -n '^id,' "$DATA/stacks.csv" | cut -d: -f1)
sed -i "${hl}s/\$/,colour/; $((hl + 1)),\$s/\$/,/" "$tmp/bad/stacks.csv"
expect 1 "$SP" hw check "$tmp/bad"
has "gpus.csv:$gl:5(fp32_flops): '15.7 TFLOPS' is not a number"
has "cpus.csv:$cl:8(tdp_W): -150 is negative"
has "stacks.csv:$hl:$(($(sed -n "${hl}p" "$DATA/stacks.csv" | tr ',' '\n' | wc -l) + 1)): unknown column 'colour'"
has "systems.csv:$sl:4(gpu): unknown gpu 'V100-SXM2-61GB'"
# with the other cells fixed, the reference alone is still reported
sed -i "${gl}s/,15.7 TFLOPS,/,15.7e12,/" "$tmp/bad/gpus.csv"
sed -i "${cl}s/,-150,/,150,/" "$tmp/bad/cpus.csv"
cp "$DATA/stacks.csv" "$tmp/bad/"
expect 1 "$SP" hw check "$tmp/bad"
has "systems.csv:$sl:4(gpu): unknown gpu 'V100-SXM2-61GB'; did you mean V100-SXM2-16GB"
expect 1 "$SP" hw check "$tmp/does-not-exist"

# --hwdb overlays: same id replaces, new ids add; both option positions
mkdir "$tmp/mine"
echo '# my systems' > "$tmp/mine/systems.csv"
echo 'id,aliases,name,gpu,gpus_per_node,intra_topology,intra_link,intra_bw_Bps,host_link,host_links,cpu,cpus_per_node,mem_B,nic,nics_per_node,storage,price_usd,price_date,power_W,local_drives,local_drive_Bps,fabric,stack,price_kind,price_source,source' >> "$tmp/mine/systems.csv"
echo 'mybox,,My box,T4,2,pcie-host,pcie3-x16,15.75e9,pcie3-x16,2,EPYC 7763,1,256e9,eth-100g,1,,12000,2024-01,800,2,3e9,eth-100g-roce,tf1-hvd,quote,vendor quote of 2024-01-15,my notes' >> "$tmp/mine/systems.csv"
expect 0 "$SP" hw show mybox --hwdb "$tmp/mine"; has "2 x T4"; has "12,000 USD (quote, 2024-01)"; has "vendor quote of 2024-01-15"; has "my notes"
expect 0 "$SP" --hwdb "$tmp/mine" hw show mybox; has "2 x T4"
expect 1 "$SP" hw show mybox;      has "unknown id 'mybox'"
expect 0 "$SP" hw show mybox --hwdb "$tmp/mine"; has "2 x 3 GB/s read"; has "network        eth-100g-roce"; has "stack tf1-hvd"
# a systems.csv written before the local_drives, local_drive_Bps, fabric and stack columns still loads
mkdir "$tmp/old"
echo 'id,aliases,name,gpu,gpus_per_node,intra_topology,intra_link,intra_bw_Bps,host_link,host_links,cpu,cpus_per_node,mem_B,nic,nics_per_node,storage,price_usd,price_date,power_W,source' > "$tmp/old/systems.csv"
echo 'oldbox,,Old box,T4,2,pcie-host,pcie3-x16,15.75e9,pcie3-x16,2,EPYC 7763,1,256e9,eth-100g,1,,,,,vendor quote' >> "$tmp/old/systems.csv"
expect 0 "$SP" hw show oldbox --hwdb "$tmp/old"; has "local drives   not given"; has "stack          - (model defaults)"
# new columns are checked: a drive count without its rate, an unknown stack, a data path that is not one
cp "$tmp/mine/systems.csv" "$tmp/old/systems.csv"
sed -i 's/,2,3e9,eth-100g-roce,tf1-hvd,/,2,,eth-100g-roce,tf2-hvd,/' "$tmp/old/systems.csv"
ol=$(grep -n '^mybox,' "$tmp/old/systems.csv" | cut -d: -f1)
expect 1 "$SP" hw check "$tmp/old"
has "systems.csv:$ol:21(local_drive_Bps): local_drives 2 and local_drive_Bps nan: give both or neither"
has "systems.csv:$ol:23(stack): unknown stack 'tf2-hvd'; did you mean tf1-hvd"
rm "$tmp/old/systems.csv"
# (a table of its own columns: the shipped stacks.csv may grow columns)
printf '%s\n' 'id,aliases,framework,data_path,staging,threads_per_gpu,decode_threads,source' 'mine,,My stack,tpu,local,0,0,x' > "$tmp/old/stacks.csv"
expect 1 "$SP" hw check "$tmp/old"; has "(data_path): 'tpu' is not a data path; expected one of cpu, gpu"
echo 'bad,,Bad,T5,1,single,,,pcie3-x16,1,,1,,,,,,,,,,,,,,x' >> "$tmp/mine/systems.csv"
expect 1 "$SP" hw show mybox --hwdb "$tmp/mine"; has "(gpu): unknown gpu 'T5'"
has "scaleplan hw show: --hwdb $tmp/mine not loaded"
# --hwdb errors name the command, as its other errors do
expect 1 "$SP" sweep --nodes 1 --out "$tmp/s.csv" --hwdb "$tmp/mine"; has "scaleplan sweep: --hwdb $tmp/mine not loaded"
expect 1 "$SP" predict --hwdb "$tmp/none"; has "scaleplan predict: --hwdb: $tmp/none"
expect 1 "$SP" validate --hwdb "$tmp/none"; has "scaleplan validate: --hwdb: $tmp/none"

# a user's own quote overrides a price through a table of id and price columns; a row for a
# system that does not exist, a negative or non-numeric price, a price without its kind: exit 1 naming
# the cell, nothing loaded
mkdir "$tmp/quote"
printf 'id,price_usd,price_kind,price_date,price_source\ndgxh100,287000,quote,2026-10,our reseller quote 2026-10-02\n' > "$tmp/quote/systems.csv"
expect 0 "$SP" hw show dgxh100 --hwdb "$tmp/quote"; has "287,000 USD (quote, 2026-10)"; has "our reseller quote 2026-10-02"
expect 0 "$SP" hw check "$tmp/quote"; has "ok"
printf 'id,price_usd,price_kind,price_date,price_source\ndgxz100,287000,quote,2026-10,me\n' > "$tmp/quote/systems.csv"
expect 1 "$SP" hw check "$tmp/quote"; has "systems.csv:2:1(id): unknown system 'dgxz100'; did you mean"
printf 'id,price_usd,price_kind,price_date,price_source\ndgxh100,-287000,quote,2026-10,me\n' > "$tmp/quote/systems.csv"
expect 1 "$SP" hw show dgxh100 --hwdb "$tmp/quote"; has "systems.csv:2:2(price_usd): -287000 is negative"
printf 'id,price_usd,price_kind,price_date,price_source\ndgxh100,cheap,quote,2026-10,me\n' > "$tmp/quote/systems.csv"
expect 1 "$SP" hw check "$tmp/quote"; has "systems.csv:2:2(price_usd): 'cheap' is not a number"
printf 'id,price_usd,price_source\ndgxh100,1000,me\n' > "$tmp/quote/systems.csv"
expect 1 "$SP" hw check "$tmp/quote"; has "systems.csv:2: empty; price_usd 1000 needs price_kind"
printf 'id,rent_usd_gpu_h,rent_date,rent_source\ndgxh100,-2,2026-10,me\n' > "$tmp/quote/systems.csv"
expect 1 "$SP" hw check "$tmp/quote"; has "systems.csv:2:2(rent_usd_gpu_h): -2 is negative"
printf 'id,rent_usd_gpu_h,rent_date,rent_source\naws-p5e,5.97,2026-08,our capacity block\n' > "$tmp/quote/systems.csv"
expect 0 "$SP" hw show p5e --hwdb "$tmp/quote"; has "on demand 5.97"; has "our capacity block"
exit $fail
