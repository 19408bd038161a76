"""Prints the ldhub vs anchors table from the files run.sh leaves in OUT_DIR.

Anchors: Oxigraph (oxigraph.json, dumps in oxigraph/), Jena TDB2 (jena.json, jena-load.time, dumps in jena/) and
Virtuoso 7 (virtuoso.json, dumps in virtuoso/), each only when its files are there. Answers are compared row by
row with each anchor's: "yes" when the sorted dumps are byte-identical, "values" when they differ only in the
lexical form of numbers (Jena writes 4999.0 for xsd:decimal 4999, 773.543144e0 for a double and MONTH() as "01";
Oxigraph and Virtuoso canonicalise data decimals; decimal quotients are compared to 12 places, since their
precision is implementation-defined), "NO" otherwise.
"""
import decimal, glob, json, math, os, re, statistics, struct, sys

out = sys.argv[1]
XSD = "http://www.w3.org/2001/XMLSchema#"
INTEGERS = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger", "nonPositiveInteger",
            "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte"}
LIT = re.compile(r'"((?:[^"\\]|\\.)*)"\^\^<' + re.escape(XSD) + r'(\w+)>')


def norm_number(m):
    lex, dt = json.loads('"' + m.group(1) + '"').strip(), m.group(2)
    try:
        if dt in INTEGERS:
            v = str(int(lex))
        elif dt == "decimal":
            # Rounded to 12 places: quotients are exact to 18 places, cut, in ldhub and Oxigraph, but rounded to 15
            # in Virtuoso (their precision is implementation-defined); data values have a handful of places.
            d = decimal.Decimal(lex).quantize(decimal.Decimal(1).scaleb(-12), rounding=decimal.ROUND_HALF_EVEN,
                                               context=decimal.Context(prec=80))
            v = format(d.normalize(decimal.Context(prec=80)), "f")
        elif dt == "double":
            v = repr(float(lex))
        elif dt == "float":
            v = repr(struct.unpack("f", struct.pack("f", float(lex)))[0])
        else:
            return m.group(0)
    except (ValueError, ArithmeticError, OverflowError):
        return m.group(0)
    return f'"{v}"^^<{XSD}{dt}>'


def compare(a, b):
    if not (os.path.exists(a) and os.path.exists(b)):
        return "?"
    x, y = open(a, encoding="utf-8").read(), open(b, encoding="utf-8").read()
    if x == y:
        return "yes"
    nx = sorted(LIT.sub(norm_number, r) for r in x.splitlines())
    ny = sorted(LIT.sub(norm_number, r) for r in y.splitlines())
    return "values" if nx == ny else "NO"


def timefile(path):
    wall, user, sys_, maxrss = open(path).read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(maxrss) >> 10


anchors = []  # name, {query: entry}, dump dir, load seconds, load CPU, load peak MiB, resident MiB (what, value)
if os.path.exists(os.path.join(out, "oxigraph.json")):
    ox = json.load(open(os.path.join(out, "oxigraph.json")))
    anchors.append(dict(name="Oxigraph", queries={q["query"]: q for q in ox["queries"]}, dump="oxigraph",
                        load_s=ox["data"]["load_ms"] / 1000, load_cpu=None, load_rss=None,
                        triples=ox["data"].get("triples"),
                        rss=("after load (in memory)", ox["data"]["rss_mib_after_load"])))
if os.path.exists(os.path.join(out, "jena.json")):
    je = json.load(open(os.path.join(out, "jena.json")))
    wall, cpu, rss = timefile(os.path.join(out, "jena-load.time"))
    anchors.append(dict(name="Jena TDB2", queries={q["query"]: q for q in je["queries"]}, dump="jena",
                        load_s=wall, load_cpu=cpu, load_rss=rss, triples=je["data"]["triples"],
                        rss=("peak of the query process", je["data"]["peak_rss_mib"])))

if os.path.exists(os.path.join(out, "virtuoso.json")):
    vi = json.load(open(os.path.join(out, "virtuoso.json")))
    d = vi["data"]
    anchors.append(dict(name="Virtuoso", queries={q["query"]: q for q in vi["queries"]}, dump="virtuoso",
                        load_s=d["load_ms"] / 1000, load_cpu=d["load_cpu_ms"] / 1000, load_rss=d["load_peak_rss_mib"],
                        triples=d["triples"], cpu_res=d.get("cpu_resolution_ms", 0),
                        rss=(f"server peak (NumberOfBuffers {d['buffers']})", vi["peak_rss_mib"])))

builds = []
for path in sorted(glob.glob(os.path.join(out, "build-*.json"))):
    b = json.load(open(path))
    wall, cpu, maxrss = timefile(path[:-5] + ".time")
    builds.append((b["build_ms"] / 1000, cpu, maxrss, b["triples"]))


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


if os.path.exists(os.path.join(out, "ours.json")) and any(a["queries"] for a in anchors):
    ours = json.load(open(os.path.join(out, "ours.json")))
    # CPU time (user+sys of the process, per run) where the anchor's tool records it: on a shared machine the wall
    # time of each engine measures the neighbours as much as the engine.
    cpu_anchors = [a for a in anchors if any("cpu_ms" in q for q in a["queries"].values())]
    head = "| query | ldhub ms |" + "".join(f" {a['name']} ms | ratio |" for a in anchors)
    head += " vs fastest |" if len(anchors) > 1 else ""
    head += " ldhub CPU ms |" + "".join(f" {a['name']} CPU ms | CPU ratio |" for a in cpu_anchors)
    head += " rows | same answers (" + ", ".join(a["name"] for a in anchors) + ") |"
    print(head)
    print("|---|---:|" + "---:|---:|" * len(anchors) + ("---:|" if len(anchors) > 1 else "") + "---:|" +
          "---:|---:|" * len(cpu_anchors) + "---:|---|")
    ratios = {a["name"]: [] for a in anchors}
    cpu_ratios = {a["name"]: [] for a in cpu_anchors}
    fastest, slower = [], 0
    for q in ours["queries"]:
        name, mine = q["query"], q.get("median_ms")
        cells, best = [], None
        for a in anchors:
            o = a["queries"].get(name, {})
            t = o.get("median_ms")
            r = mine / t if mine and t else float("nan")
            if r == r:
                ratios[a["name"]].append(r)
                best = t if best is None else min(best, t)
            cells.append(f" {t:.3f} | {r:.2f} |" if t else f" {o.get('error', 'n/a')[:40]} | |")
        line = f"| {name} | {mine:.3f} |" if mine else f"| {name} | {q.get('error', '')[:40]} |"
        line += "".join(cells)
        if len(anchors) > 1:
            if best and mine:
                fastest.append(mine / best)
                slower += mine > best
                line += f" {mine / best:.2f} |"
            else:
                line += " |"
        mc = q.get("cpu_ms")
        line += f" {mc:.1f} |" if mc is not None else " |"
        for a in cpu_anchors:
            c = a["queries"].get(name, {}).get("cpu_ms")
            res = a.get("cpu_res", 0)  # /proc counts a server's CPU in 10 ms ticks: no ratio below two of them
            if a["queries"].get(name, {}).get("error"):
                line += " n/a | |"  # no answer (an error or a time-out), so no CPU time to compare
            elif c is not None and res and c < 2 * res:
                line += f" <{2 * res} | |"
            elif c is not None and mc is not None:
                cpu_ratios[a["name"]].append(max(mc, 0.1) / max(c, 0.1))  # getrusage ticks are coarse
                line += f" {c:.1f} | {max(mc, 0.1) / max(c, 0.1):.2f} |"
            else:
                line += " | |"
        same = ", ".join(compare(os.path.join(out, "ours", name + ".txt"), os.path.join(out, a["dump"], name + ".txt"))
                         for a in anchors)
        print(line + f" {q.get('results', '')} | {same} |")
    print()
    for a in anchors:
        rs = ratios[a["name"]]
        print(f"geometric mean of ratios vs {a['name']}: {gmean(rs):.3f} over {len(rs)} queries; "
              f"slower than {a['name']}: {sum(r > 1 for r in rs)}")
        failed = [q["query"] for q in ours["queries"] if a["queries"].get(q["query"], {}).get("error")]
        if failed:
            print(f"  no answer from {a['name']} (left out of the means): {', '.join(failed)}")
        if a["name"] in cpu_ratios:
            cr = cpu_ratios[a["name"]]
            print(f"  in CPU time: {gmean(cr):.3f}; more CPU than {a['name']}: {sum(r > 1 for r in cr)}")
    if len(anchors) > 1:
        print(f"geometric mean vs the fastest anchor of each query: {gmean(fastest):.3f} (goal ≤ 0.5); "
              f"queries slower than the fastest anchor: {slower}")
    print(f"ldhub resident memory with the publication open and queried: {ours['rss_mib']} MiB "
          f"(peak {ours['peak_rss_mib']})")
    for a in anchors:
        what, v = a["rss"]
        print(f"  {a['name']} {what}: {v} MiB → ldhub peak is {ours['peak_rss_mib'] / v:.2f}× of it")
if builds:
    med = statistics.median(b[0] for b in builds)
    n = builds[0][3]
    print(f"index build (parse + index, fresh process, median of {len(builds)}): {med:.2f} s wall, "
          f"{n / med / 1000:.0f} k triples/s, {n / statistics.median(b[1] for b in builds) / 1000:.0f} k triples per "
          f"CPU second (runs {', '.join(f'{b[0]:.2f}' for b in builds)} s; "
          f"CPU {', '.join(f'{b[1]:.2f}' for b in builds)} s; peak RSS {max(b[2] for b in builds)} MiB)")
    for a in anchors:
        extra, tn = "", a["triples"] or n
        if a["load_cpu"] is not None:
            extra = (f", CPU {a['load_cpu']:.2f} s ({tn / a['load_cpu'] / 1000:.0f} k triples per CPU second), "
                     f"peak RSS {a['load_rss']} MiB")
        print(f"  {a['name']} load: {a['load_s']:.2f} s wall, {tn / a['load_s'] / 1000:.0f} k triples/s{extra} → "
              f"ldhub build is {(n / med) / (tn / a['load_s']):.1f}× its throughput"
              + (" (goal ≥ 2)" if a["name"] == "Virtuoso" else ""))
