// Runs the steps of a (simple) Dockerfile without Docker, for tests on machines
// without a container engine.
//
// Supported subset: FROM <image> [AS <name>], WORKDIR, ENV, COPY [--from=<stage>]
// [--chown=..] [--chmod=..] <src>... <dest>, RUN (shell or exec form). USER, EXPOSE,
// HEALTHCHECK, CMD, ENTRYPOINT, LABEL, STOPSIGNAL are recorded, not executed.
//
// Each stage gets its own temporary directory standing in for the stage's "/":
// WORKDIR /app maps to <stageRoot>/app, `COPY --from=build /app/dist` reads
// <buildRoot>/app/dist. The base image is stood in for by the host (its `node`,
// `npm`, `bash` on PATH); absolute paths inside RUN commands are NOT remapped,
// ownership (--chown, USER) is recorded but not applied.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Splits a Dockerfile into instructions: [{ line, keyword, args }]. */
export function parseDockerfile(text) {
  const out = [];
  let buf = '';
  let start = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!buf && (line === '' || line.startsWith('#'))) return; // comments, parser directives
    if (buf && (line === '' || line.startsWith('#'))) return; // inside a continuation
    if (!buf) start = i + 1;
    if (line.endsWith('\\')) {
      buf += `${line.slice(0, -1)} `;
      return;
    }
    buf += line;
    const m = /^(\S+)\s*(.*)$/s.exec(buf.trim());
    if (m) out.push({ line: start, keyword: m[1].toUpperCase(), args: m[2].trim() });
    buf = '';
  });
  return out;
}

/** Splits on whitespace, honouring "double" and 'single' quotes. */
function words(s) {
  return [...s.matchAll(/(?:"(?:\\.|[^"])*"|'[^']*'|[^\s"'])+/g)].map((m) =>
    m[0].replace(/"((?:\\.|[^"])*)"|'([^']*)'/g, (_, d, q) => (d ?? q).replace(/\\(.)/g, '$1')),
  );
}

const substitute = (s, env) => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => env[a ?? b] ?? '');

/** JSON (exec) form when the arguments are a JSON array, otherwise null. */
function execForm(args) {
  if (!args.startsWith('[')) return null;
  try {
    const v = JSON.parse(args);
    return Array.isArray(v) ? v.map(String) : null;
  } catch {
    return null;
  }
}

/** Leading --flag=value options, e.g. COPY --from=build --chown=node:node. */
function takeFlags(list) {
  const flags = {};
  while (list[0]?.startsWith('--')) {
    const [k, v = 'true'] = list.shift().slice(2).split(/=(.*)/s);
    flags[k] = v;
  }
  return flags;
}

/** .dockerignore: Go filepath.Match-style patterns plus `**`, `!` exceptions, last match wins. */
export function loadDockerignore(context) {
  const file = path.join(context, '.dockerignore');
  const rules = (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split(/\r?\n/) : [])
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pat = path.posix.normalize(l.slice(negate ? 1 : 0).trim()).replace(/^\/+|\/+$/g, '');
      const re = pat
        .split('/')
        .map((seg) =>
          seg === '**'
            ? '(?:.*)'
            : seg
                .replace(/[.+^${}()|\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
      return { negate, re: new RegExp(`^${re}$`) };
    });
  // A path is ignored if a rule matches it or one of its parent directories.
  return (rel) => {
    const parts = rel.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const r of rules) if (candidates.some((c) => r.re.test(c))) ignored = !r.negate;
    return ignored;
  };
}

/** Expands `*`/`?` in the last segment of a source path (enough for `package*.json`). */
function expand(base, src) {
  const dir = path.dirname(src),
    name = path.basename(src);
  if (!/[*?]/.test(name)) return [src];
  const re = new RegExp(
    `^${name
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  const entries = fs.existsSync(path.join(base, dir)) ? fs.readdirSync(path.join(base, dir)) : [];
  return entries.filter((e) => re.test(e)).map((e) => path.posix.join(dir, e));
}

function copy(stage, ins, { context, stages, ignored }) {
  const list = words(substitute(ins.args, stage.env));
  const flags = takeFlags(list);
  const dest = list.pop();
  if (!dest || list.length === 0) throw new Error(`line ${ins.line}: COPY needs a source and a destination`);
  const fromStage = flags.from !== undefined ? stages.get(flags.from) : null;
  if (flags.from !== undefined && !fromStage) throw new Error(`line ${ins.line}: unknown stage "${flags.from}"`);
  const base = fromStage ? fromStage.root : context;
  const sources = list.flatMap((s) => expand(base, s.replace(/^\/+/, '')));
  const destAbs = path.join(stage.root, path.posix.resolve(stage.workdir, dest));
  const intoDir = dest.endsWith('/') || sources.length > 1;
  for (const src of sources) {
    const from = path.join(base, src);
    const rel = path.relative(base, from).split(path.sep).join('/');
    if (!fs.existsSync(from) || (!fromStage && ignored(rel))) {
      throw new Error(
        `line ${ins.line}: COPY source "${src}" not found${fromStage ? ` in stage ${flags.from}` : ' in build context'}`,
      );
    }
    const isDir = fs.statSync(from).isDirectory();
    // Docker copies a directory's *contents* to dest; a file goes into dest/ or becomes dest.
    const target = !isDir && intoDir ? path.join(destAbs, path.basename(from)) : destAbs;
    fs.mkdirSync(isDir ? target : path.dirname(target), { recursive: true });
    fs.cpSync(from, target, {
      recursive: true,
      verbatimSymlinks: true, // keep node_modules/.bin links relative
      filter: (p) => (fromStage ? true : !ignored(path.relative(context, p).split(path.sep).join('/') || '.')),
    });
  }
}

function run(stage, ins, baseEnv, log) {
  const argv = execForm(ins.args) ?? ['bash', '-c', ins.args];
  const cwd = path.join(stage.root, stage.workdir);
  fs.mkdirSync(cwd, { recursive: true });
  log(`[${stage.name}] RUN ${ins.args}`);
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { ...baseEnv, ...stage.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`line ${ins.line}: RUN ${ins.args} exited with ${code}\n${output.slice(-4000)}`)),
    );
  });
}

/**
 * Executes every stage of the Dockerfile. `env` is the environment RUN steps start
 * from (standing in for the base image's; default PATH and HOME of this process).
 */
export async function runDockerfile({ dockerfile, context, workRoot, env, log = () => {} }) {
  const text = fs.existsSync(dockerfile) ? fs.readFileSync(dockerfile, 'utf8') : dockerfile;
  const baseEnv = env ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const ignored = loadDockerignore(context);
  const stages = new Map(); // by name, and by index for `COPY --from=0`
  let count = 0;
  let stage = null;
  for (const ins of parseDockerfile(text)) {
    if (ins.keyword === 'FROM') {
      const list = words(ins.args);
      takeFlags(list); // e.g. --platform: irrelevant here
      const [image, as, name] = list;
      const parent = stages.get(image);
      const idx = count++;
      stage = {
        name: as?.toUpperCase() === 'AS' ? name : String(idx),
        image,
        root: fs.mkdtempSync(path.join(workRoot, `stage-${idx}-`)),
        workdir: parent?.workdir ?? '/',
        env: { ...parent?.env },
        labels: { ...parent?.labels },
        user: parent?.user ?? 'root',
        exposed: [...(parent?.exposed ?? [])],
        cmd: parent?.cmd ?? null,
        entrypoint: parent?.entrypoint ?? null,
        healthcheck: parent?.healthcheck ?? null,
        stopSignal: parent?.stopSignal ?? null,
      };
      if (parent) fs.cpSync(parent.root, stage.root, { recursive: true, verbatimSymlinks: true });
      stages.set(stage.name, stage);
      if (stage.name !== String(idx)) stages.set(String(idx), stage);
      continue;
    }
    if (!stage) throw new Error(`line ${ins.line}: ${ins.keyword} before FROM`);
    const args = substitute(ins.args, stage.env);
    switch (ins.keyword) {
      case 'WORKDIR':
        stage.workdir = path.posix.resolve(stage.workdir, args);
        fs.mkdirSync(path.join(stage.root, stage.workdir), { recursive: true });
        break;
      case 'ENV': {
        const list = words(ins.args);
        const pairs = list[0]?.includes('=')
          ? list.map((w) => w.split(/=(.*)/s))
          : [[list[0], list.slice(1).join(' ')]];
        for (const [k, v = ''] of pairs) stage.env[k] = substitute(v, stage.env);
        break;
      }
      case 'COPY':
        copy(stage, ins, { context, stages, ignored });
        break;
      case 'RUN':
        await run(stage, ins, baseEnv, log);
        break;
      case 'USER':
        stage.user = args;
        break;
      case 'EXPOSE':
        stage.exposed.push(...words(args));
        break;
      // Build arguments only feed the labels here; their defaults are enough to run the image's steps.
      case 'ARG':
        break;
      case 'LABEL':
        for (const [k, v = ''] of words(args).map((w) => w.split(/=(.*)/s))) stage.labels[k] = v;
        break;
      case 'STOPSIGNAL':
        stage.stopSignal = args;
        break;
      case 'HEALTHCHECK': {
        const list = words(ins.args);
        const options = takeFlags(list);
        const rest = ins.args.slice(ins.args.search(/\b(CMD|NONE)\b/i)).replace(/^\S+\s*/, '');
        stage.healthcheck =
          list[0]?.toUpperCase() === 'NONE' ? null : { options, cmd: execForm(rest) ?? ['/bin/sh', '-c', rest] };
        break;
      }
      case 'CMD':
        stage.cmd = execForm(ins.args) ?? ['/bin/sh', '-c', ins.args];
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = execForm(ins.args) ?? ['/bin/sh', '-c', ins.args];
        break;
      default:
        throw new Error(`line ${ins.line}: unsupported instruction ${ins.keyword}`);
    }
  }
  if (!stage) throw new Error('Dockerfile has no FROM');
  const named = Object.fromEntries([...stages.values()].map((s) => [s.name, s.root]));
  return { stages: named, final: { ...stage, dir: path.join(stage.root, stage.workdir) } };
}
