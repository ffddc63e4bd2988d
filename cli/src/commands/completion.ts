// `ideally completion bash|zsh|fish`: completion scripts built from the command tree itself, so
// they never drift from main.ts. What a word may be comes from the tree too: a positional named
// <id>/<project> completes project ids, <client> client ids, <file> file names, <shell> the shells;
// an option's value by its placeholder (<format>, <market>, <client>, <file>) or a fixed list. Ids
// and markets are asked of the API at TAB time by the hidden `ideally __complete KIND`, which uses
// the saved session and prints nothing (exit 0) when it cannot.
import type { Argument, Command, Option } from "commander";
import { usageError } from "../errors.ts";

/** What a value completes to: a fixed word list, or a kind `__complete` or the shell resolves. */
type Kind = { words: string[] } | { dynamic: "projects" | "clients" | "markets" | "commands" } | { files: true } | null;

interface Node {
  path: string[];
  /** The command's own aliases (`ls` of `projects list`): completed after as the name is, never offered. */
  aliases: string[];
  subcommands: string[];
  /** Each subcommand's aliases with its name. */
  subAliases: { alias: string; name: string }[];
  options: string[];
  /** The first positional argument's values. */
  arg: Kind;
  /** Options that take a value, with what it completes to. */
  values: { option: string; kind: Kind }[];
}

/** Option values that are one of a few words, by option. */
const FIXED: Record<string, string[]> = {
  "--format": ["csv", "xlsx", "pptx"],
  "--sentiment": ["Positive", "Neutral", "Negative", "Mixed"],
  "--confidence": ["90", "95", "99"],
  "--adjust": ["bh", "none", "bonferroni"],
  "--to": ["100", "200", "300"],
};

function placeholder(name: string, long: string | undefined): Kind {
  if (long && FIXED[long]) return { words: FIXED[long] };
  if (long === "--client" || name === "client") return { dynamic: "clients" };
  if (name === "id" || name === "project") return { dynamic: "projects" };
  if (name === "market") return { dynamic: "markets" };
  if (name === "file") return { files: true };
  if (name === "shell") return { words: ["bash", "zsh", "fish"] };
  return null;
}

const optionKind = (o: Option): Kind => placeholder(/<([^>]+)>|\[([^\]]+)\]/.exec(o.flags)?.slice(1).find(Boolean) ?? "", o.long);

function argKind(cmd: Command, path: string[]): Kind {
  const a: Argument | undefined = cmd.registeredArguments[0];
  if (!a) return null;
  if (path.join(" ") === "admin commands") return { dynamic: "commands" };
  return placeholder(a.name(), undefined);
}

function walk(cmd: Command, path: string[] = []): Node[] {
  const subs = cmd.commands.filter((c) => c.name() !== "help" && !c.name().startsWith("__"));
  const visible = cmd.options.filter((o) => !o.hidden);
  const options = [...visible.map((o) => o.long).filter((x): x is string => Boolean(x)), "--help"];
  const values = visible.filter((o) => o.required || o.optional).map((o) => ({ option: o.long ?? o.short ?? "", kind: optionKind(o) }));
  for (const o of visible) if (o.short && (o.required || o.optional)) values.push({ option: o.short, kind: optionKind(o) });
  const subAliases = subs.flatMap((c) => c.aliases().map((alias) => ({ alias, name: c.name() })));
  return [
    { path, aliases: cmd.parent ? cmd.aliases() : [], subcommands: subs.map((c) => c.name()), subAliases, options, arg: argKind(cmd, path), values },
    ...subs.flatMap((c) => walk(c, [...path, c.name()])),
  ];
}

export function completion(program: Command, shell: string): string {
  const nodes = walk(program);
  if (shell === "bash") return bash(nodes);
  if (shell === "zsh") return `#compdef ideally\nautoload -U +X bashcompinit && bashcompinit\n${bash(nodes)}`;
  if (shell === "fish") return fish(nodes);
  throw usageError(`completion: expected bash, zsh or fish, got '${shell}'`);
}

/** The bash words for a kind: a compgen call. */
function bashKind(k: Kind): string {
  if (!k) return `COMPREPLY=()`;
  if ("words" in k) return `COMPREPLY=($(compgen -W "${k.words.join(" ")}" -- "$cur"))`;
  if ("files" in k) return `COMPREPLY=($(compgen -f -- "$cur"))`;
  return `COMPREPLY=($(compgen -W "$(ideally __complete ${k.dynamic} 2>/dev/null)" -- "$cur"))`;
}

function bash(nodes: Node[]): string {
  const globals = nodes[0];
  const cases = nodes.map((n) => `    "${n.path.join(" ")}") words="${[...new Set([...n.subcommands, ...n.options, ...(n.path.length ? globals.options : [])])].join(" ")}" ;;`).join("\n");
  // An option's value: by the command path and the option before the cursor (globals anywhere).
  const valueCases = nodes.flatMap((n) => [...n.values, ...(n.path.length ? globals.values : [])].map((v) => `    "${n.path.join(" ")}|${v.option}") ${bashKind(v.kind)}; return ;;`)).join("\n");
  const argCases = nodes
    .filter((n) => n.arg)
    .map((n) => `        "${n.path.join(" ")}") ${bashKind(n.arg)} ;;`)
    .join("\n");
  return `# ideally completion for bash (ideally completion bash)
_ideally() {
  local cur prev path="" w words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # The command path so far: the words that are subcommands (an alias read as its name), options
  # and their values skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    w="$(_ideally_name "$path" "$w")"
    case " $(_ideally_subs "$path") " in *" $w "*) path="\${path:+$path }$w" ;; esac
  done
  if [[ "$cur" != -* ]]; then
    case "$path|$prev" in
${valueCases}
    esac
  fi
  case "$path" in
${cases}
    *) words="" ;;
  esac
  if [[ "$cur" != -* ]]; then
    # The command's argument (ids, files, ...), then its subcommands (\`results 42\`, \`results verbatims\`).
    COMPREPLY=()
    case "$path" in
${argCases}
    esac
    words="$(_ideally_subs "$path")"
    [[ -n "$words" ]] && COMPREPLY+=($(compgen -W "$words" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
_ideally_subs() {
  case "$1" in
${nodes.map((n) => `    "${n.path.join(" ")}") echo "${n.subcommands.join(" ")}" ;;`).join("\n")}
  esac
}
_ideally_name() {
  case "$1|$2" in
${nodes.flatMap((n) => n.subAliases.map((a) => `    "${n.path.join(" ")}|${a.alias}") echo "${a.name}" ;;`)).join("\n")}
    *) echo "$2" ;;
  esac
}
complete -F _ideally ideally
`;
}

/** fish: -a takes a word list or a command's output ("id<TAB>description" lines). */
function fishKind(k: Kind): string {
  if (!k) return "";
  if ("words" in k) return ` -x -a '${k.words.join(" ")}'`;
  if ("files" in k) return " -r -F";
  return ` -x -a '(ideally __complete ${k.dynamic} --describe 2>/dev/null)'`;
}

function fish(nodes: Node[]): string {
  const lines = ["# ideally completion for fish (ideally completion fish)", "complete -c ideally -f"];
  for (const n of nodes) {
    // fish: the subcommands seen so far decide what is offered next.
    // An alias counts as its name (`p ls` as `projects list`).
    const cond = n.path.length === 0 ? "__fish_use_subcommand" : `__fish_seen_subcommand_from ${[n.path.at(-1), ...n.aliases].join(" ")}`;
    for (const s of n.subcommands) lines.push(`complete -c ideally -n '${cond}' -a ${s}`);
    for (const o of n.options) {
      const v = n.values.find((x) => x.option === o);
      lines.push(`complete -c ideally -n '${cond}' -l ${o.replace(/^--/, "")}${v ? fishKind(v.kind) || " -r" : ""}`);
    }
    if (n.subcommands.length === 0 && n.path.length && n.arg) lines.push(`complete -c ideally -n '${cond}'${fishKind(n.arg)}`);
  }
  return `${lines.join("\n")}\n`;
}
