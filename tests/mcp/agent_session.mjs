// tests/mcp/agent_session.mjs — a coding agent's whole loop on a small real
// project, driven through `toolcage serve` by the official MCP TypeScript
// SDK (@modelcontextprotocol/sdk) over stdio, the way a model calls the
// built-in tools: orient (list_roots, tree, list_dir), find (find_files,
// search_text), read a 3000-line file page by page, run the tests
// (run_command), fix the bug (edit_file), patch (apply_patch), look at the
// diff (git diff), create, move and delete; every step with a relative and
// an absolute path, every answer compared whole with what it must be. The
// project has a .gitignore naming node_modules/ (with files in it that
// hold the very words searched for): they must never appear. Destructive
// calls are approved by this client through elicitation, and each
// question is counted. Run by tests/integration/mcp_agent_session.sh from
// the npm prefix.
//
// usage: node agent_session.mjs TOOLCAGE
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [tc] = process.argv.slice(2);
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tc-agent-')));
let fails = 0;
const ok = (cond, what) => {
	console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
	if (!cond) fails++;
	return cond;
};
// Two texts must be equal; when not, the first line that differs is shown.
const same = (got, want, what) => {
	if (ok(got === want, what))
		return true;
	const g = String(got).split('\n'), w = String(want).split('\n');
	for (let i = 0; i < Math.max(g.length, w.length); i++)
		if (g[i] !== w[i]) {
			console.log(`  line ${i + 1}:\n  got:  ${JSON.stringify(g[i])}\n  want: ${JSON.stringify(w[i])}`);
			break;
		}
	return false;
};
const sameJson = (got, want, what) => same(JSON.stringify(got), JSON.stringify(want), what);
const write = (rel, text) => {
	fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
	fs.writeFileSync(path.join(ws, rel), text);
};
const read = (rel) => fs.readFileSync(path.join(ws, rel), 'utf8');
const exists = (rel) => fs.existsSync(path.join(ws, rel));
const abs = (rel) => (rel === '.' ? ws : `${ws}/${rel}`);
const git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args],
                                     { cwd: ws, encoding: 'utf8' });

// ---- the project ----------------------------------------------------------
const counterPy = `def count_words(text):
    return len(text.split())


def mean_length(words):
    if not words:
        return 0.0
    return sum(len(w) for w in words) / (len(words) + 1)
`;
const testsPy = `import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from textstats import count_words, mean_length

failures = 0
for text, want in [("a b c", 3), ("", 0), ("one  two", 2)]:
    if count_words(text) != want:
        print("FAIL count_words(%r) = %r, want %r" % (text, count_words(text), want))
        failures += 1
if mean_length(["ab", "abcd"]) != 3.0:
    print("FAIL mean_length = %r, want 3.0" % mean_length(["ab", "abcd"]))
    failures += 1
print("%d failed" % failures if failures else "all passed")
sys.exit(1 if failures else 0)
`;
// 3000 lines of every kind a page must not cut: short, empty, tabs,
// multibyte characters (the budget counts characters), long lines.
const bigLines = [];
for (let i = 1; i <= 3000; i++) {
	if (i % 97 === 0)
		bigLines.push('');
	else if (i % 89 === 0)
		bigLines.push(`# long ${i}: ` + 'lorem ipsum dolor sit amet, '.repeat(40).trim());
	else if (i % 7 === 0)
		bigLines.push(`\tvalue_${i} = compute(${i}, scale=2)\t# étape ${i} → ok`);
	else
		bigLines.push(`value_${i} = compute(${i}, scale=2)  # step ${i}`);
}
write('.gitignore', 'node_modules/\n__pycache__/\n*.log\n');
write('README.md', '# textstats\n\nCounts words. Run the tests with `python3 tests/run_tests.py`.\n');
write('src/textstats/__init__.py', 'from .counter import count_words, mean_length\n');
write('src/textstats/counter.py', counterPy);
write('tests/run_tests.py', testsPy);
write('data/big.py', bigLines.join('\n') + '\n');
write('node_modules/leftpad/mean.py', 'def mean_length(words):\n    return 0\n');
write('node_modules/leftpad/index.js', 'module.exports = function mean_length() {};\n');
write('node_modules/leftpad/package.json', '{"name": "leftpad"}\n');
write('debug.log', 'mean_length was slow\n');
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'initial');

// ---- the client -------------------------------------------------------------
let stderr = '';
const transport = new StdioClientTransport({ command: tc, args: ['serve', '--workspace', ws],
                                            stderr: 'pipe' });
transport.stderr?.on('data', (d) => { stderr += d; });
const client = new Client({ name: 'toolcage-agent-session', version: '1.0.0' },
                          { capabilities: { elicitation: { form: {} } } });
const questions = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
	questions.push(req.params.message);
	return { action: 'accept', content: { choice: 'allow_once' } };
});
// One call: its text, structured content and error flag.
const call = async (name, args) => {
	const r = await client.callTool({ name, arguments: args });
	const text = r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
	return { text, sc: r.structuredContent, isError: r.isError === true };
};
// The text without its last newline (a page ends in one, an empty line
// in a tab: neither is trimmed away).
const body = (r) => r.text.replace(/\n$/, '');
// A call that must ask once and then succeed.
const approved = async (name, args) => {
	const before = questions.length;
	const r = await call(name, args);
	ok(questions.length === before + 1 && questions[before].includes(`'${name}'`),
	   `${name}: one approval question, naming the tool`);
	return r;
};
const ignoredLine = '[3 entries skipped by .gitignore/.ignore rules, e.g. debug.log, node_modules/, ' +
	'src/textstats/__pycache__/; include_ignored true includes them]';
const ignoredLine2 = '[2 entries skipped by .gitignore/.ignore rules, e.g. debug.log, ' +
	'node_modules/; include_ignored true includes them]';

try {
	await client.connect(transport);
	ok(client.getInstructions().includes(`The workspace is ${ws}:`) &&
	   client.getInstructions().includes(`("${ws}/src/main.c"); both work`),
	   'instructions: where the workspace is, and that both path forms work');

	// ---- orient ----------------------------------------------------------
	let r = await call('list_roots', {});
	sameJson(r.sc.roots, [{ name: 'workspace', path: ws }], 'list_roots: the workspace');
	const treeText = ['./', '  .git/', '  .gitignore', '  README.md', '  data/', '    big.py', '  src/',
	                  '    textstats/', '      __init__.py', '      counter.py', '  tests/',
	                  '    run_tests.py',
	                  '[11 entries; "name/ ..." marks a directory whose entries are not shown ' +
	                  '(below the depth bound, or past the cap)]', ignoredLine2].join('\n');
	for (const p of ['.', ws]) {
		r = await call('tree', { path: p });
		same(body(r), treeText, `tree ${p === '.' ? 'relative' : 'absolute'}: the project, node_modules skipped`);
		ok(r.sc.count === 11 && r.sc.ignored === 2 && !r.sc.truncated &&
		   !JSON.stringify(r.sc).includes('leftpad'), `tree ${p}: canonical counts, no node_modules`);
	}
	const listText = ['src/textstats/', 'src/textstats/__init__.py  46 bytes',
	                  `src/textstats/counter.py  ${counterPy.length} bytes`].join('\n');
	for (const p of ['src', abs('src')]) {
		r = await call('list_dir', { path: p, depth: 2 });
		same(body(r), listText, `list_dir ${p}: depth 2`);
		ok(r.sc.path === 'src' && r.sc.count === 3, `list_dir ${p}: canonical path is relative`);
	}

	// ---- find --------------------------------------------------------------
	const pyFiles = ['data/big.py', 'src/textstats/__init__.py', 'src/textstats/counter.py',
	                 'tests/run_tests.py'];
	for (const [args, want, ign] of [
		[{ pattern: '**/*.py' }, pyFiles, ignoredLine2],
		[{ pattern: '*.py', path: ws }, pyFiles, ignoredLine2],
		[{ pattern: 'src/**/*.{py,md}' }, pyFiles.slice(1, 3), ignoredLine2],
		[{ pattern: 'textstats/*.py', path: abs('src') }, pyFiles.slice(1, 3), null],
	]) {
		r = await call('find_files', args);
		const text = [...want, `[${want.length} files match; ${want.length} shown, by name]`];
		if (ign)
			text.push(ign);
		same(body(r), text.join('\n'), `find_files ${JSON.stringify(args)}`);
		sameJson(r.sc.results.map((x) => x.path), want, `find_files ${JSON.stringify(args)}: canonical`);
	}
	r = await call('find_files', { pattern: '**/*.rs' });
	ok(!r.isError && r.text.startsWith('no file under "." matches "**/*.rs"'),
	   'find_files: no match says so');

	const hits = [
		'src/textstats/__init__.py:1: from .counter import count_words, mean_length',
		'src/textstats/counter.py:5: def mean_length(words):',
		'tests/run_tests.py:5: from textstats import count_words, mean_length',
		'tests/run_tests.py:12: if mean_length(["ab", "abcd"]) != 3.0:',
		'tests/run_tests.py:13:     print("FAIL mean_length = %r, want 3.0" % mean_length(["ab", "abcd"]))',
	];
	for (const [args, n] of [[{ pattern: 'mean_length' }, 6],
	                         [{ pattern: 'mean_length', glob: '**/*.py', path: ws }, 4],
	                         [{ pattern: 'mean_length(', literal: true, path: '.' }, 6]]) {
		r = await call('search_text', args);
		const want = args.literal ? hits.filter((h) => h.includes('mean_length(')) : hits;
		same(body(r), [...want, `[${want.length} matches shown, in ${n} files searched]`,
		                        ignoredLine2].join('\n'), `search_text ${JSON.stringify(args)}`);
		ok(r.sc.matches.every((m) => m.path.startsWith('src/') || m.path.startsWith('tests/')) &&
		   r.sc.ignored === 2 && r.sc.files_searched === n,
		   `search_text ${JSON.stringify(args)}: nothing from node_modules`);
	}
	r = await call('search_text', { pattern: 'mean_length', path: abs('src'), output: 'files' });
	same(body(r), 'src/textstats/__init__.py\nsrc/textstats/counter.py\n' +
	     '[2 files with a match shown, of 2 searched]', 'search_text absolute path, files');
	r = await call('search_text', { pattern: 'def ', path: 'src/textstats/counter.py', context: 1 });
	same(body(r), ['src/textstats/counter.py:1: def count_words(text):',
	                        'src/textstats/counter.py-2-     return len(text.split())',
	                        '--',
	                        'src/textstats/counter.py-4- ',
	                        'src/textstats/counter.py:5: def mean_length(words):',
	                        'src/textstats/counter.py-6-     if not words:',
	                        '[2 matches shown, in 1 file searched]'].join('\n'),
	     'search_text a file with context');

	// ---- read the 3000-line file page by page --------------------------------
	const seen = [];
	let offset = 1, pages = 0, exact = true;
	while (offset && pages < 100) {
		const p = pages % 2 ? abs('data/big.py') : 'data/big.py';
		r = await call('read_file', offset === 1 ? { path: p } : { path: p, offset });
		pages++;
		const sc = r.sc;
		const last = sc.offset + sc.lines.length - 1;
		const pageLines = sc.lines.map((l, k) => `${String(sc.offset + k).padStart(6)}\t${l}`);
		const footer = sc.next_offset ?
			`[lines ${sc.offset}-${last} of 3000 shown${sc.lines.length < 2000 ? " (the answer's size cap)" : ''}; ` +
			`call read_file with offset ${last + 1} to read on]` :
			`[lines ${sc.offset}-${last} of 3000 shown]`;
		const want = [...pageLines, footer].join('\n');
		exact &&= same(body(r), want, `read_file page ${pages} (${p === 'data/big.py' ? 'relative' : 'absolute'}): lines ${sc.offset}-${last}, render = canonical + exact footer`);
		exact &&= ok(sc.offset === offset && sc.path === 'data/big.py' && sc.total_lines === 3000 &&
		             r.text.length <= 20000 && !r.isError &&
		             (sc.next_offset ? sc.next_offset === last + 1 && sc.truncated : !sc.truncated && last === 3000),
		             `read_file page ${pages}: continues where the last stopped, within the budget`);
		for (let k = 0; k < sc.lines.length; k++)
			seen.push(sc.lines[k]);
		offset = sc.next_offset;
	}
	ok(pages > 5, `read_file: ${pages} pages (the file is larger than one answer)`);
	ok(seen.length === 3000 && seen.every((l, k) => l === bigLines[k]),
	   'read_file: every line exactly once, none cut, in order');

	r = await call('read_many_files', { paths: [abs('README.md'), 'src/textstats/__init__.py'] });
	same(body(r), ['==> README.md <==', '     1	# textstats', '     2	',
	               '     3	Counts words. Run the tests with `python3 tests/run_tests.py`.', '',
	               '==> src/textstats/__init__.py <==',
	               '     1	from .counter import count_words, mean_length'].join('\n'),
	     'read_many_files, absolute and relative: both named from the workspace');
	sameJson(r.sc.files.map((f) => f.path), ['README.md', 'src/textstats/__init__.py'],
	         'read_many_files: canonical paths');

	// ---- run the tests, fix, run again ---------------------------------------
	const failOut = 'FAIL mean_length = 2.0, want 3.0\n1 failed\n';
	r = await approved('run_command', { argv: ['python3', 'tests/run_tests.py'] });
	same(body(r), `$ python3 tests/run_tests.py\nexit status 1\n--- stdout (${failOut.length} bytes) ---\n` +
	     `${failOut}--- stderr (0 bytes) ---`, 'run_command: the failing tests, exact');
	ok(r.isError && r.sc.exit_code === 1 && r.sc.cwd === '.' && r.sc.stdout === failOut,
	   'run_command: exit 1 is a failure with everything in it');

	r = await call('edit_file', { path: 'src/textstats/counter.py', old_text: '/ (len(words) + 1)',
	                              new_text: '/ len(words)' });
	same(body(r), [`Edited "src/textstats/counter.py" at line 8: replaced 1 line with 1; the file now has ${counterPy.length - 6} bytes.`,
	                        '     6	    if not words:', '     7	        return 0.0',
	                        '     8	    return sum(len(w) for w in words) / len(words)'].join('\n'),
	     'edit_file relative: the fix, its region numbered');
	same(read('src/textstats/counter.py'), counterPy.replace('/ (len(words) + 1)', '/ len(words)'),
	     'edit_file: the file holds the fix');

	r = await approved('run_command', { argv: ['python3', 'run_tests.py'], cwd: abs('tests') });
	same(body(r), `$ python3 run_tests.py\n(in ${abs('tests')})\nexit status 0\n--- stdout (11 bytes) ---\n` +
	     'all passed\n--- stderr (0 bytes) ---', 'run_command absolute cwd: the tests pass');
	ok(!r.isError && r.sc.cwd === abs('tests') && r.sc.exit_code === 0, 'run_command: exit 0, the cwd as given');

	r = await approved('run_command', { argv: ['python3', 'tests/run_tests.py'], stream: 'merged',
	                                    env: { PYTHONDONTWRITEBYTECODE: '1' } });
	same(body(r), '$ python3 tests/run_tests.py\n(env: PYTHONDONTWRITEBYTECODE set)\nexit status 0\n' +
	     '--- output (11 bytes, stdout and stderr merged) ---\nall passed',
	     'run_command, env and merged output');

	// edit_file with an absolute path and several edits, all or nothing.
	r = await call('edit_file', { path: abs('README.md'), edits: [
		{ old_text: 'Counts words.', new_text: 'Counts words and their mean length.' },
		{ old_text: 'no such text', new_text: 'x' }] });
	ok(r.isError && r.sc.error === 'no_match' && r.sc.edit === 2 && read('README.md').includes('Counts words. Run'),
	   'edit_file absolute: a failing edit of two writes nothing');
	r = await call('edit_file', { path: abs('README.md'), old_text: 'Counts words.',
	                              new_text: 'Counts words and their mean length.' });
	same(body(r), [`Edited "README.md" at line 3: replaced 1 line with 1; the file now has ${read('README.md').length} bytes.`,
	                        '     1	# textstats', '     2	',
	                        '     3	Counts words and their mean length. Run the tests with `python3 tests/run_tests.py`.'].join('\n'),
	     'edit_file absolute: named relative, region shown');

	// ---- apply_patch: relative and absolute headers --------------------------
	r = await call('apply_patch', { patch: [
		'--- a/src/textstats/__init__.py', '+++ b/src/textstats/__init__.py', '@@ -1 +1,3 @@',
		' from .counter import count_words, mean_length', '+',
		'+__all__ = ["count_words", "mean_length"]', ''].join('\n') });
	same(body(r), ['Patched "src/textstats/__init__.py": 1 hunk, 0 lines removed, 2 added.',
	                        '     1	from .counter import count_words, mean_length', '     2	',
	                        '     3	__all__ = ["count_words", "mean_length"]'].join('\n'),
	     'apply_patch relative paths');
	r = await call('apply_patch', { patch: [
		`--- ${abs('src/textstats/counter.py')}`, `+++ ${abs('src/textstats/counter.py')}`,
		'@@ -1,2 +1,2 @@', '-def count_words(text):', '+def count_words(text: str) -> int:',
		'     return len(text.split())', ''].join('\n') });
	same(body(r), ['Patched "src/textstats/counter.py": 1 hunk, 1 line removed, 1 added.',
	                        '     1	def count_words(text: str) -> int:',
	                        '     2	    return len(text.split())', '     3	'].join('\n'),
	     'apply_patch absolute paths, named relative');
	r = await call('apply_patch', { patch: [
		'--- a/README.md', '+++ b/README.md', '@@ -1,2 +1,2 @@', '-# textstats', '+# wordstats', ' ',
		'--- a/tests/run_tests.py', '+++ b/tests/run_tests.py', '@@ -1,2 +1,2 @@',
		' import os', '-import nothing_like_this', ''].join('\n') });
	ok(r.isError && r.sc.error === 'hunk_failed' && r.sc.file === 'tests/run_tests.py' &&
	   read('README.md').startsWith('# textstats'), 'apply_patch: a failing hunk writes nothing');

	// ---- the diff ------------------------------------------------------------
	r = await approved('run_command', { argv: ['git', 'diff'], cwd: ws });
	const diff = git('diff');
	ok(diff.includes('+__all__') && diff.includes('-def count_words(text):') &&
	   diff.includes('+Counts words and their mean length.'), 'git diff (outside): every change');
	same(r.sc.stdout, diff, 'run_command git diff: the diff, exact');

	// ---- create, move, delete -------------------------------------------------
	r = await call('make_dir', { path: 'docs/guide', parents: true });
	same(body(r), 'Created directory "docs/guide".', 'make_dir relative');
	r = await call('make_dir', { path: abs('docs/api') });
	same(body(r), 'Created directory "docs/api".', 'make_dir absolute');
	r = await call('write_file', { path: 'docs/usage.md', content: '# Usage\n' });
	same(body(r), 'Created "docs/usage.md": 8 bytes written.', 'write_file relative');
	r = await call('write_file', { path: abs('src/textstats/extra.py'), content: 'X = 1\n' });
	same(body(r), 'Created "src/textstats/extra.py": 6 bytes written.', 'write_file absolute');
	ok(read('src/textstats/extra.py') === 'X = 1\n', 'write_file: the content');

	r = await approved('move_path', { source: 'docs/usage.md', destination: 'docs/guide' });
	same(body(r), 'Moved file "docs/usage.md" to "docs/guide/usage.md".',
	     'move_path relative into an existing directory');
	r = await approved('move_path', { source: abs('src/textstats/extra.py'),
	                                  destination: abs('src/textstats/more.py') });
	same(body(r), 'Moved file "src/textstats/extra.py" to "src/textstats/more.py".',
	     'move_path absolute, named relative');
	ok(exists('docs/guide/usage.md') && exists('src/textstats/more.py') &&
	   !exists('src/textstats/extra.py'), 'move_path: the files are where it says');
	const asked = questions.length;
	r = await call('move_path', { source: 'docs/api', destination: abs('docs/guide/usage.md') });
	ok(r.isError && r.sc.error === 'exists' && questions.length === asked,
	   'move_path onto an existing file: refused before any approval');

	r = await approved('delete_path', { path: 'src/textstats/more.py' });
	same(body(r), 'Deleted file "src/textstats/more.py".', 'delete_path relative');
	r = await call('delete_path', { path: abs('docs') });
	ok(r.isError && r.sc.error === 'not_empty' && questions.length === asked + 1,
	   'delete_path absolute, non-empty without recursive: refused before any approval');
	r = await approved('delete_path', { path: abs('docs'), recursive: true });
	same(body(r), 'Deleted directory "docs" and 3 entries inside it.',
	     'delete_path absolute, recursive');
	ok(!exists('docs') && !exists('src/textstats/more.py'), 'delete_path: gone');

	// Outside the workspace: refused, with or without a shared prefix.
	for (const p of ['/etc/hostname', `${ws}-old/x`, '../x']) {
		r = await call('read_file', { path: p });
		ok(r.isError && ['absolute_path', 'outside_workspace'].includes(r.sc.error),
		   `read_file ${p}: refused (${r.sc.error})`);
	}

	// The end: what the project looks like, and the tree says it.
	r = await call('tree', {});
	same(body(r), ['./', '  .git/', '  .gitignore', '  README.md', '  data/', '    big.py', '  src/',
	                        '    textstats/', '      __init__.py', '      counter.py', '  tests/',
	                        '    run_tests.py',
	                        '[11 entries; "name/ ..." marks a directory whose entries are not shown ' +
	                        '(below the depth bound, or past the cap)]', ignoredLine].join('\n'),
	     'tree at the end: __pycache__ from the test runs skipped too');
	ok(questions.length === 8, `8 approval questions in all, one per destructive call (${questions.length})`);
} catch (e) {
	ok(false, `exception: ${e?.stack || e}`);
} finally {
	await client.close().catch(() => {});
	fs.rmSync(ws, { recursive: true, force: true });
}
if (/Sanitizer|runtime error:/.test(stderr)) ok(false, `sanitizer report:\n${stderr}`);
if (fails) console.log(`server stderr:\n${stderr}`);
console.log(fails ? `${fails} failed` : 'all passed');
process.exit(fails ? 1 : 0);
