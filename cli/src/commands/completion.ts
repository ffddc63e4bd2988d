// `ideally completion bash|zsh|fish`: completion scripts built from the command tree itself, so
// they never drift from main.ts.
import type { Command } from "commander";
import { usageError } from "../errors.ts";

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
}

function walk(cmd: Command, path: string[] = []): Node[] {
  const subs = cmd.commands.filter((c) => c.name() !== "help");
  const options = [...cmd.options.map((o) => o.long).filter((x): x is string => Boolean(x)), "--help"];
  return [{ path, subcommands: subs.map((c) => c.name()), options }, ...subs.flatMap((c) => walk(c, [...path, c.name()]))];
}

export function completion(program: Command, shell: string): string {
  const nodes = walk(program);
  const globals = nodes[0].options;
  if (shell === "bash") return bash(nodes, globals);
  if (shell === "zsh") return `#compdef ideally\nautoload -U +X bashcompinit && bashcompinit\n${bash(nodes, globals)}`;
  if (shell === "fish") return fish(nodes);
  throw usageError(`completion: expected bash, zsh or fish, got '${shell}'`);
}

function bash(nodes: Node[], globals: string[]): string {
  const cases = nodes
    .map((n) => `    "${n.path.join(" ")}") words="${[...new Set([...n.subcommands, ...n.options, ...(n.path.length ? globals : [])])].join(" ")}" ;;`)
    .join("\n");
  return `# ideally completion for bash (ideally completion bash)
_ideally() {
  local cur path="" w words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  # The command path so far: the words that are subcommands, options and their values skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case " $(_ideally_subs "$path") " in *" $w "*) path="\${path:+$path }$w" ;; esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  if [[ "$cur" != -* ]]; then words="$(_ideally_subs "$path")"; [[ -z "$words" ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; }; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
_ideally_subs() {
  case "$1" in
${nodes.map((n) => `    "${n.path.join(" ")}") echo "${n.subcommands.join(" ")}" ;;`).join("\n")}
  esac
}
complete -F _ideally ideally
`;
}

function fish(nodes: Node[]): string {
  const lines = ["# ideally completion for fish (ideally completion fish)", "complete -c ideally -f"];
  for (const n of nodes) {
    // fish: the subcommands seen so far decide what is offered next.
    const cond = n.path.length === 0 ? "__fish_use_subcommand" : `__fish_seen_subcommand_from ${n.path.at(-1)}`;
    for (const s of n.subcommands) lines.push(`complete -c ideally -n '${cond}' -a ${s}`);
    for (const o of n.options) lines.push(`complete -c ideally -n '${cond}' -l ${o.replace(/^--/, "")}`);
  }
  return `${lines.join("\n")}\n`;
}
