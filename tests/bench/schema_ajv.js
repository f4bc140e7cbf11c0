// schema_ajv.js — the ajv side of schema_ajv.sh: the same schema and
// instances as bench_schema.c, parsed once, validations per second as the
// median of repeated runs.
// usage: node schema_ajv.js SCHEMA VALID.jsonl INVALID.jsonl N RUNS
'use strict';
const fs = require('fs');
const [schemaPath, validPath, invalidPath, nArg, runsArg] = process.argv.slice(2);
const n = Number(nArg || 200000), runs = Number(runsArg || 9);
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const lines = (p) => fs.readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const Ajv = String(schema.$schema || '').includes('2020-12') || !schema.$schema
	? require('ajv/dist/2020') : require('ajv');
const ajv = new (Ajv.default || Ajv)();
let t0 = process.hrtime.bigint();
const validate = ajv.compile(schema);
const compileUs = Number(process.hrtime.bigint() - t0) / 1e3;

function runOnce(insts, count, want) {
	const start = process.hrtime.bigint();
	for (let i = 0; i < count; i++) {
		if (validate(insts[i % insts.length]) !== want)
			throw new Error('unexpected verdict');
	}
	return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

function report(label, insts, want) {
	runOnce(insts, Math.floor(n / 10), want);   // warm up (JIT)
	const v = [];
	for (let r = 0; r < runs; r++)
		v.push(runOnce(insts, n, want));
	v.sort((a, b) => a - b);
	console.log(`  ajv      ${label.padEnd(22)} ${v[runs >> 1].toFixed(0).padStart(12)} validations/s  ` +
		`(median of ${runs}, min ${v[0].toFixed(0)}, max ${v[runs - 1].toFixed(0)})`);
}

console.log(`  ajv compile: ${compileUs.toFixed(0)} us`);
report('valid', lines(validPath), true);
report('invalid (first error)', lines(invalidPath), false);
