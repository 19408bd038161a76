"""Prints the ldhub vs Oxigraph table from the files run.sh leaves in OUT_DIR."""
import json, math, os, sys

out = sys.argv[1]
ours = json.load(open(os.path.join(out, "ours.json")))
ox = json.load(open(os.path.join(out, "oxigraph.json")))
build = json.load(open(os.path.join(out, "build.json")))
wall, user, sys_, maxrss = open(os.path.join(out, "build.time")).read().split()
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
ox_load = ox["data"]["load_ms"] / 1000
print(f"index build (parse + index, 1 process): {build['build_ms']/1000:.2f} s wall ({float(user)+float(sys_):.2f} s CPU), "
      f"Oxigraph load: {ox_load:.2f} s → {ox_load/(build['build_ms']/1000):.1f}× its throughput (goal ≥ 10×)")
print(f"resident memory with the publication open and queried: {ours['rss_mib']} MiB (peak {ours['peak_rss_mib']}), "
      f"Oxigraph after load: {ox['data']['rss_mib_after_load']} MiB → {ours['peak_rss_mib']/ox['data']['rss_mib_after_load']:.2f}× (goal ≤ 0.25×)")
