// driver.cjs runs a list of steps against @duckdb/node-api and prints one JSON result per step.
// Usage: node driver.cjs NODE_DIR STEPS_JSON   (NODE_DIR holds node_modules/@duckdb/node-api)
// Steps: {"open": path, "options": {...}} opens an instance and a connection (a stack: "close" closes the
// newest); {"sql": "..."} gives {"rows": [[text or null, ...]]} or {"error": message};
// {"files": dir} lists the directory; {"exec": [cmd, ...args], "env": {...}} runs a child process;
// {"parallel": ["...", ...]} runs each statement on its own new connection of the newest instance, all at
// once, and gives {"results": [{"rows"} or {"error"}, ...]}; {"connect": name} opens another connection of the
// newest instance under that name, and {"sql": "...", "conn": name} runs on it.
const { createRequire } = require('node:module');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { DuckDBInstance } = createRequire(process.argv[2] + '/node_modules/')('@duckdb/node-api');

(async () => {
  const open = [];
  const out = [];
  for (const step of JSON.parse(process.argv[3])) {
    try {
      if ('open' in step) {
        const instance = await DuckDBInstance.create(step.open, step.options || {});
        open.push({ instance, connection: await instance.connect() });
        out.push({ ok: true });
      } else if ('connect' in step) {
        const top = open[open.length - 1];
        top.named = top.named || {};
        top.named[step.connect] = await top.instance.connect();
        out.push({ ok: true });
      } else if ('sql' in step) {
        const top = open[open.length - 1];
        const connection = step.conn ? top.named[step.conn] : top.connection;
        const reader = await connection.runAndReadAll(step.sql);
        out.push({ rows: reader.getRowsJS().map((r) => r.map((v) => (v === null ? null : String(v)))) });
      } else if ('parallel' in step) {
        const { instance } = open[open.length - 1];
        const results = await Promise.all(step.parallel.map(async (q) => {
          const connection = await instance.connect();
          try {
            const reader = await connection.runAndReadAll(q);
            return { rows: reader.getRowsJS().map((r) => r.map((v) => (v === null ? null : String(v)))) };
          } catch (e) {
            return { error: e.message };
          } finally {
            connection.closeSync();
          }
        }));
        out.push({ results });
      } else if ('close' in step) {
        const { instance, connection, named } = open.pop();
        for (const c of Object.values(named || {})) {
          c.closeSync();
        }
        connection.closeSync();
        instance.closeSync();
        out.push({ ok: true });
      } else if ('files' in step) {
        out.push({ files: fs.readdirSync(step.files).sort() });
      } else if ('exec' in step) {
        const r = spawnSync(step.exec[0], step.exec.slice(1), {
          env: { ...process.env, ...(step.env || {}) }, encoding: 'utf8', timeout: 60000,
        });
        out.push({ status: r.status, output: (r.stdout || '') + (r.stderr || '') + (r.error ? String(r.error) : '') });
      } else {
        throw new Error('unknown step ' + JSON.stringify(step));
      }
    } catch (e) {
      out.push({ error: e.message });
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
