// JenaBench runs a folder of SPARQL queries against an Apache Jena TDB2 database through Jena's Java API (the way
// an application embedding Jena queries it; Debian ships no Fuseki) and prints the same JSON and dumps as
// ../shared/bench/oxigraph-bench.mjs and bench/sparql, so run.sh can put Jena beside them:
//
//	java -cp CP JenaBench --loc DIR [--queries DIR] [--runs N] [--warmup N] [--dump DIR] [--out FILE]
//
// Each run parses the query, executes it in a read transaction and walks every result (a CONSTRUCT or DESCRIBE
// is built as a model, that is, without duplicate triples, as the other engines return it). Rows are rendered
// like the other two tools: bound variables sorted by name as name=term, blank nodes as _:b, literals as JSON
// strings with @lang (lower case) or ^^<datatype>.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.google.gson.GsonBuilder;
import org.apache.jena.graph.Node;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.QuerySolution;
import org.apache.jena.query.ReadWrite;
import org.apache.jena.query.ResultSet;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.StmtIterator;
import org.apache.jena.graph.Triple;
import org.apache.jena.tdb2.TDB2Factory;

public class JenaBench {
    public static void main(String[] args) throws Exception {
        String loc = null, queries = null, dump = null, out = null;
        int runs = 5, warmup = 1;
        long budgetMs = Long.parseLong(System.getenv().getOrDefault("JENA_QUERY_BUDGET_MS", "60000"));
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--loc": loc = args[++i]; break;
                case "--queries": queries = args[++i]; break;
                case "--runs": runs = Integer.parseInt(args[++i]); break;
                case "--warmup": warmup = Integer.parseInt(args[++i]); break;
                case "--dump": dump = args[++i]; break;
                case "--out": out = args[++i]; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (loc == null) throw new IllegalArgumentException("--loc is required");
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long t0 = System.nanoTime();
        Dataset ds = TDB2Factory.connectDataset(loc);
        long triples;
        ds.begin(ReadWrite.READ);
        try {
            triples = ds.getDefaultModel().size();
        } finally {
            ds.end();
        }
        double openMs = (System.nanoTime() - t0) / 1e6;
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("loc", loc);
        data.put("triples", triples);
        data.put("open_ms", round(openMs));
        data.put("rss_mib_after_open", rssMiB("VmRSS"));
        List<Path> files = new ArrayList<>(); // none without --queries: only the open and its memory
        if (queries != null) {
            try (Stream<Path> s = Files.list(Paths.get(queries))) {
                files = s.filter(p -> p.toString().endsWith(".rq")).sorted().collect(Collectors.toList());
            }
        }
        if (dump != null) Files.createDirectories(Paths.get(dump));
        List<Map<String, Object>> results = new ArrayList<>();
        for (Path f : files) {
            String name = f.getFileName().toString().replaceAll("\\.rq$", "");
            String text = Files.readString(f, StandardCharsets.UTF_8);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("query", name);
            List<Double> times = new ArrayList<>(), cpus = new ArrayList<>();
            List<String> rows = null;
            try {
                // A query slower than the budget is not repeated: its first run is its median.
                for (int i = 0; i < warmup + runs; i++) {
                    long t = System.nanoTime(), c = os.getProcessCpuTime();
                    rows = run(ds, text);
                    double el = (System.nanoTime() - t) / 1e6;
                    if (i >= warmup || el > budgetMs) {
                        times.add(el);
                        cpus.add((os.getProcessCpuTime() - c) / 1e6);
                    }
                    if (el > budgetMs || sum(times) > budgetMs) break;
                }
            } catch (Exception e) {
                r.put("error", String.valueOf(e));
                System.err.printf("%-32s ERROR %s%n", name, e);
                results.add(r);
                continue;
            }
            Collections.sort(rows);
            List<Double> s = new ArrayList<>(times);
            Collections.sort(s);
            int n = s.size();
            double median = median(times);
            r.put("results", rows.size());
            r.put("median_ms", round(median));
            r.put("min_ms", round(s.get(0)));
            r.put("max_ms", round(s.get(n - 1)));
            r.put("runs_ms", times.stream().map(JenaBench::round).collect(Collectors.toList()));
            // CPU time of the whole JVM (JIT and collector threads included) per run: on a shared machine wall time
            // measures the neighbours.
            r.put("cpu_ms", round(median(cpus)));
            String joined = String.join("\n", rows);
            r.put("hash", sha256(joined).substring(0, 16));
            if (dump != null) Files.writeString(Paths.get(dump, name + ".txt"), joined + "\n", StandardCharsets.UTF_8);
            results.add(r);
            System.err.printf("%-32s %7d results  median %.3f ms%n", name, rows.size(), median);
        }
        ds.close();
        data.put("rss_mib_end", rssMiB("VmRSS"));
        data.put("peak_rss_mib", rssMiB("VmHWM"));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("tool", "JenaBench");
        doc.put("engine", "jena-tdb2 " + org.apache.jena.Jena.VERSION);
        doc.put("java", System.getProperty("java.version"));
        doc.put("max_heap_mib", Runtime.getRuntime().maxMemory() >> 20);
        doc.put("data", data);
        doc.put("runs", runs);
        doc.put("warmup", warmup);
        doc.put("queries", results);
        String json = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(doc);
        if (out != null) Files.writeString(Paths.get(out), json + "\n");
        else System.out.println(json);
    }

    static List<String> run(Dataset ds, String text) {
        List<String> rows = new ArrayList<>();
        ds.begin(ReadWrite.READ);
        try {
            Query q = QueryFactory.create(text);
            try (QueryExecution qe = QueryExecution.create().query(q).dataset(ds).timeout(5, TimeUnit.MINUTES).build()) {
                if (q.isSelectType()) {
                    ResultSet rs = qe.execSelect();
                    List<String> vars = new ArrayList<>(rs.getResultVars());
                    Collections.sort(vars);
                    while (rs.hasNext()) {
                        QuerySolution b = rs.next();
                        StringBuilder sb = new StringBuilder();
                        for (String v : vars) {
                            if (!b.contains(v)) continue;
                            if (sb.length() > 0) sb.append(' ');
                            sb.append(v).append('=').append(term(b.get(v).asNode()));
                        }
                        rows.add(sb.toString());
                    }
                } else if (q.isAskType()) {
                    rows.add(String.valueOf(qe.execAsk()));
                } else {
                    Model m = q.isConstructType() ? qe.execConstruct() : qe.execDescribe();
                    for (StmtIterator it = m.listStatements(); it.hasNext(); ) {
                        Triple t = it.next().asTriple();
                        rows.add(term(t.getSubject()) + " " + term(t.getPredicate()) + " " + term(t.getObject()));
                    }
                }
            }
        } finally {
            ds.end();
        }
        return rows;
    }

    static String term(Node n) {
        if (n.isURI()) return "<" + n.getURI() + ">";
        if (n.isBlank()) return "_:b";
        String v = json(n.getLiteralLexicalForm());
        String lang = n.getLiteralLanguage();
        if (lang != null && !lang.isEmpty()) return v + "@" + lang.toLowerCase();
        String dt = n.getLiteralDatatypeURI();
        if (dt != null && !dt.equals("http://www.w3.org/2001/XMLSchema#string")) return v + "^^<" + dt + ">";
        return v;
    }

    // json quotes s as JavaScript's JSON.stringify does, so dumps compare byte for byte with Oxigraph's.
    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    static double sum(List<Double> xs) {
        double s = 0;
        for (double x : xs) s += x;
        return s;
    }

    static double round(double x) { return Math.round(x * 1000) / 1000.0; }

    static String sha256(String s) throws Exception {
        byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        StringBuilder b = new StringBuilder();
        for (byte x : h) b.append(String.format("%02x", x));
        return b.toString();
    }

    static long rssMiB(String field) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim()) >> 10;
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }
}
