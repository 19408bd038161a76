"""Prints the ldhub vs Oxigraph table from the files run.sh leaves in OUT_DIR."""
import glob, json, math, os, statistics, sys

out = sys.argv[1]
ox = json.load(open(os.path.join(out, "oxigraph.json")))
builds = []
for path in sorted(glob.glob(os.path.join(out, "build-*.json"))):
    b = json.load(open(path))
    wall, user, sys_, maxrss = open(path[:-5] + ".time").read().split()
    builds.append((b["build_ms"] / 1000, float(user) + float(sys_), int(maxrss) >> 10))
if os.path.exists(os.path.join(out, "ours.json")) and ox["queries"]:
    ours = json.load(open(os.path.join(out, "ours.json")))
    oxq = {q["query"]: q for q in ox["queries"]}
    print("| query | ldhub median ms | Oxigraph median ms | ratio | rows | same answers |")
    print("|---|---:|---:|---:|---:|---|")
    ratios = []
    for q in ours["queries"]:
        o = oxq.get(q["query"], {})
        same = "?"
        a, b = os.path.join(out, "ours", q["query"] + ".txt"), os.path.join(out, "oxigraph", q["query"] + ".txt")
        if os.path.exists(a) and os.path.exists(b):
            same = "yes" if open(a).read() == open(b).read() else "NO"
        r = q["median_ms"] / o["median_ms"] if o.get("median_ms") else float("nan")
        if r == r:
            ratios.append(r)
        print(f"| {q['query']} | {q['median_ms']:.3f} | {o.get('median_ms', float('nan')):.3f} | {r:.2f} | {q['results']} | {same} |")
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\ngeometric mean of ratios: {gm:.3f} (goal ≤ 0.5); queries slower than Oxigraph: {sum(r > 1 for r in ratios)}")
    print(f"resident memory with the publication open and queried: {ours['rss_mib']} MiB (peak {ours['peak_rss_mib']}), "
          f"Oxigraph after load: {ox['data']['rss_mib_after_load']} MiB → {ours['peak_rss_mib']/ox['data']['rss_mib_after_load']:.2f}× (goal ≤ 0.25×)")
ox_load = ox["data"]["load_ms"] / 1000
med = statistics.median(b[0] for b in builds)
print(f"index build (parse + index, fresh process, median of {len(builds)}): {med:.2f} s wall "
      f"(runs {', '.join(f'{b[0]:.2f}' for b in builds)} s; CPU {', '.join(f'{b[1]:.2f}' for b in builds)} s; "
      f"peak RSS {max(b[2] for b in builds)} MiB), Oxigraph load: {ox_load:.2f} s → {ox_load/med:.1f}× its throughput (goal ≥ 10×)")
