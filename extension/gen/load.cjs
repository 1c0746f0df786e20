// load.cjs NODE_DIR EXTENSION: loads a DuckDB extension in @duckdb/node-api (used by gen.sh).
const { createRequire } = require('node:module');
const { DuckDBInstance } = createRequire(process.argv[2] + '/node_modules/')('@duckdb/node-api');
(async () => {
  const instance = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
  const connection = await instance.connect();
  await connection.run(`LOAD '${process.argv[3]}'`);
})().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
