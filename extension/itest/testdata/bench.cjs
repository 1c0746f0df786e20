// bench.cjs NODE_DIR DB EXTENSION QUERIES_JSON: times each query in @duckdb/node-api (best of `repeats`,
// after LOAD) and prints {"ms": [...], "maxRSSKiB": n}. Queries are {"sql": ..., "repeats": n}.
const { createRequire } = require('node:module');
const { DuckDBInstance } = createRequire(process.argv[2] + '/node_modules/')('@duckdb/node-api');

(async () => {
  const instance = await DuckDBInstance.create(process.argv[3], { allow_unsigned_extensions: 'true', threads: '2' });
  const connection = await instance.connect();
  await connection.run('SET preserve_insertion_order = false');
  await connection.run(`LOAD '${process.argv[4]}'`);
  const ms = [];
  for (const q of JSON.parse(process.argv[5])) {
    let best = Infinity;
    for (let i = 0; i < (q.repeats || 3); i++) {
      const start = process.hrtime.bigint();
      await connection.runAndReadAll(q.sql);
      best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
    }
    ms.push(best);
  }
  connection.closeSync();
  // VmHWM, not resourceUsage().maxRSS: getrusage keeps the peak of the process that started node (Linux
  // carries it across fork and exec).
  const hwm = /VmHWM:\s*(\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
  process.stdout.write(JSON.stringify({ ms, maxRSSKiB: hwm ? Number(hwm[1]) : 0 }) + '\n');
})().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
