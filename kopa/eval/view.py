"""`kopa bench view RUN`: a run folder as a static site a person reads in the browser, from disk, no server.

RUN/view/index.html            every episode in a table, filtered in the page by domain, verdict, failure
                               cause and policy seed; each row opens its episode
RUN/view/episodes/<task>.s<seed>.r<rollout>.html
                               the query; every message; each tool call with its arguments, its result
                               (records in pages of RECORDS_PER_PAGE, each page collapsible), error class and
                               attempts; the final answer; the verdict with its method and details — beside
                               the golden trajectory (the target's executed calls and answer)

Everything is read from the run's own files (config.json, episodes.jsonl, scores.jsonl, transcripts/) and
its task set; every text is HTML-escaped (a tool result is data, never markup). The pages are the same bytes
for the same run: no clock, no absolute path.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa.eval.episode import Episode, ScoredEpisode, Transcript
from kopa.eval.runner import (
    RunConfig,
    RunFolderError,
    episode_key,
    load_task_set,
    read_config,
    read_episodes,
    read_scores,
    read_unplayed,
    transcript_name,
)
from kopa.eval.task import Target, Task
from kopa.fileio import write_atomic

RECORDS_PER_PAGE = 20
ACTION_ONLY = "action_only"  # a score's details flag: its source kept ACTION alone (no Corr, Eff)
ANSWER_CHARS = 60  # of an answer in the table


@dataclass(frozen=True)
class EpisodeView:
    task: Task
    target: Target
    episode: Episode
    scored: ScoredEpisode
    transcript: Transcript | None

    @property
    def page(self) -> str:
        return "episodes/" + transcript_name(self.task.id, self.episode.seed, self.episode.rollout).replace(
            ".json", ".html")


def load_views(run_dir: Path) -> list[EpisodeView]:
    """The run's scored episodes with their task, target and transcript, in the order scores.jsonl has."""
    found = load_task_set(read_config(run_dir))
    tasks = {t.id: t for t in found.tasks()}
    targets = found.targets()
    episodes = {episode_key(e.task_id, e.seed, e.rollout): e for e in read_episodes(run_dir)}
    views = []
    for scored in read_scores(run_dir):
        episode = episodes.get(episode_key(scored.task_id, scored.seed, scored.rollout))
        if episode is None or scored.task_id not in tasks:
            raise RunFolderError(f"{run_dir}: {scored.task_id} seed {scored.seed} rollout {scored.rollout} is scored "
                                 "but not in episodes.jsonl or the task set; re-score with `kopa bench score`")
        path = run_dir / "transcripts" / transcript_name(scored.task_id, scored.seed, scored.rollout)
        transcript = Transcript.model_validate_json(path.read_bytes()) if path.exists() else None
        views.append(EpisodeView(tasks[scored.task_id], targets[scored.task_id], episode, scored, transcript))
    return views


def write_view(run_dir: Path, out: Path | None = None) -> Path:
    """Write the site of a `kopa bench run` folder — the episodes it played and those it could not play, each
    with why; returns its index.html."""
    config = read_config(run_dir)
    unplayed = read_unplayed(run_dir)
    played = (run_dir / "scores.jsonl").exists() or bool(read_episodes(run_dir)) or not unplayed
    views = load_views(run_dir) if played else []
    if not views and not unplayed:
        raise RunFolderError(f"{run_dir} has no episodes, played or unplayed: the run stopped before its first")
    return write_site(out or run_dir / "view", f"kopa bench · {run_dir.resolve().name}", views,
                      about=_about(config), unplayed=unplayed)


def _about(config: RunConfig) -> str:
    """What was evaluated, as the index says it: the policy, and a model policy's model, server and sampling."""
    if not config.model:
        return f"policy {config.policy}"
    tokens = config.max_tokens if config.max_tokens is not None else "the server's default"
    return (f"policy {config.policy} · model {config.model} at {config.base_url or 'the OpenAI API'} · "
            f"temperature {config.temperature:g} · max_tokens {tokens} · max_turns {config.max_turns}")


def write_site(out: Path, title: str, views: list[EpisodeView], about: str = "",
               unplayed: list[Episode] | None = None) -> Path:
    """The table and a page per episode, for any episodes with their tasks (a bench run, GRPO rollouts); the
    episodes a failing server kept from being played listed apart, with why."""
    (out / "episodes").mkdir(parents=True, exist_ok=True)
    write_atomic(out / "index.html", _index(title, views, about, unplayed or []).encode())
    for view in views:
        write_atomic(out / view.page, _episode(title, view).encode())
    return out / "index.html"


# ------------------------------------------------------------------------------------------ pieces

def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json(value: Any) -> str:
    return _e(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str))


def _verdict(passed: bool | None) -> str:
    if passed is None:
        return '<span class="na">—</span>'
    return '<span class="pass">pass</span>' if passed else '<span class="fail">fail</span>'


STYLE = """
body{font-family:system-ui,"Noto Sans CJK KR","Noto Sans KR","NanumGothic","Malgun Gothic",sans-serif;margin:1.5rem;color:#1d1d1f;line-height:1.45}
h1{font-size:1.3rem} h2{font-size:1.1rem;margin-top:1.5rem} a{color:#0a58ca}
table{border-collapse:collapse;width:100%;font-size:.9rem} th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f7;position:sticky;top:0} tr:hover td{background:#fafafa}
.pass{color:#0a7d32;font-weight:600} .fail{color:#c0392b;font-weight:600} .na{color:#999}
.filters{display:flex;gap:1rem;flex-wrap:wrap;margin:.8rem 0} .filters label{font-size:.9rem}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.5rem}
.box{border:1px solid #ddd;border-radius:6px;padding:.6rem .8rem;margin:.5rem 0;background:#fff}
.msg{border-left:4px solid #bbb;padding:.3rem .6rem;margin:.4rem 0;white-space:pre-wrap;word-break:break-word}
.system{border-color:#999}.user{border-color:#0a58ca}.assistant{border-color:#7b2cbf}.tool{border-color:#e67e22}
.call.error{border-color:#c0392b} pre{background:#f7f7f9;padding:.5rem;overflow-x:auto;font-size:.82rem;margin:.3rem 0}
.meta{color:#555;font-size:.85rem} summary{cursor:pointer} .count{color:#555;font-size:.9rem}
"""

FILTER_SCRIPT = """
const selects = document.querySelectorAll('.filters select');
function apply() {
  let shown = 0;
  document.querySelectorAll('#episodes tbody tr').forEach(row => {
    const ok = [...selects].every(s => s.value === '' || row.dataset[s.name] === s.value);
    row.hidden = !ok; if (ok) shown++;
  });
  document.getElementById('shown').textContent = shown;
}
selects.forEach(s => s.addEventListener('change', apply));
apply();
"""


def _page(title: str, body: str, script: str = "") -> str:
    tail = f"<script>{script}</script>" if script else ""
    return (f'<!DOCTYPE html>\n<html lang="ko"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{STYLE}</style></head>'
            f"<body>{body}{tail}</body></html>\n")


def _select(name: str, label: str, values: Iterable[str]) -> str:
    options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in sorted(set(values)))
    return f'<label>{label} <select name="{name}"><option value="">all</option>{options}</select></label>'


def _cause(view: EpisodeView) -> str:
    return view.scored.failure_cause or ("" if view.scored.score.passed else "unknown")


def _unplayed(episodes: list[Episode]) -> str:
    if not episodes:
        return ""
    rows = "".join(f"<tr><td>{_e(e.task_id)}</td><td>{e.seed}</td><td>{e.rollout}</td><td>{_e(e.error or '')}</td></tr>"
                   for e in episodes)
    return (f'<h2 id="unplayed">{len(episodes)} episode(s) not played</h2><p>A server failed after the run\'s '
            "retries (the model's or an MCP server): these are in no figure; running the same `kopa bench run` "
            "again plays them.</p><table><thead><tr><th>task</th><th>seed</th><th>rollout</th><th>why</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>")


def _index(title: str, views: list[EpisodeView], about: str = "", unplayed: list[Episode] | None = None) -> str:
    passed = sum(v.scored.score.passed for v in views)
    rows = []
    for v in views:
        s = v.scored
        answer = (s.answer or "")[:ANSWER_CHARS]
        rows.append(
            f'<tr data-domain="{_e(s.domain)}" data-verdict="{"pass" if s.score.passed else "fail"}" '
            f'data-cause="{_e(_cause(v) or "—")}" data-seed="{s.seed}">'
            f'<td><a href="{_e(v.page)}">{_e(s.task_id)}</a></td><td>{_e(s.domain)}</td><td>{s.seed}</td>'
            f"<td>{s.rollout}</td><td>{_verdict(s.score.passed)}</td><td>{_e(_cause(v) or '—')}</td>"
            f"<td>{s.calls}</td><td>{s.score.action:.3f}</td><td>{_e(answer)}</td></tr>")
    filters = "".join([
        _select("domain", "domain", (v.scored.domain for v in views)),
        _select("verdict", "verdict", ("pass" if v.scored.score.passed else "fail" for v in views)),
        _select("cause", "failure cause", (_cause(v) or "—" for v in views)),
        _select("seed", "policy seed", (str(v.scored.seed) for v in views))])
    body = (f"<h1>{_e(title)}</h1>" + (f'<p class="about">{_e(about)}</p>' if about else "")
            + f"<p class=\"count\">{len(views)} episodes · {passed} passed · "
            + (f'<a href="#unplayed">{len(unplayed)} not played</a> · ' if unplayed else "")
            + f'showing <span id="shown">{len(views)}</span></p><div class="filters">{filters}</div>'
            '<table id="episodes"><thead><tr><th>task</th><th>domain</th><th>seed</th><th>rollout</th>'
            "<th>verdict</th><th>failure cause</th><th>calls</th><th>Action</th><th>answer</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>" + _unplayed(unplayed or []))
    return _page(title, body, FILTER_SCRIPT)


def _records(records: list[Any]) -> str:
    if not records:
        return ""
    pages = []
    for start in range(0, len(records), RECORDS_PER_PAGE):
        chunk = records[start:start + RECORDS_PER_PAGE]
        pages.append(f"<details><summary>records {start + 1}–{start + len(chunk)}</summary>"
                     f"<pre>{_json(chunk)}</pre></details>")
    return "".join(pages)


def _call(number: int, call: dict[str, Any], result: dict[str, Any] | None) -> str:
    error = (result or {}).get("error") or (call.get("error") or None)
    attempts = (result or {}).get("attempts") or []  # none: refused before any request (a bad argument)
    head = (f"<b>#{number} {_e(call['tool'])}</b> <span class=\"meta\">turn {call['turn']} · "
            f"{'ok' if call['ok'] else 'error'} · {call.get('records', 0)} records"
            + (f" of {call['total_count']}" if call.get("total_count") is not None else "")
            + (f" · {len(attempts)} HTTP attempts" if attempts else "") + "</span>")
    parts = [head, f"<pre>{_json(call['arguments'])}</pre>"]
    if call.get("malformed"):
        parts.append(f'<p class="fail">malformed: {_e(call["malformed"])}</p>')
        if call.get("raw_arguments") is not None:
            parts.append(f"<pre>{_e(call['raw_arguments'])}</pre>")
    if error:
        parts.append(f'<p class="fail">{_e(error.get("error_class"))}/{_e(error.get("kind"))}: '
                     f'{_e(error.get("message", ""))}</p>')
    if result is not None:
        parts.append(_records(result.get("records") or []))
        if len(attempts) > 1:
            parts.append(f"<details><summary>attempts</summary><pre>{_json(attempts)}</pre></details>")
    return f'<div class="box call{" error" if error else ""}">{"".join(parts)}</div>'


def _message(message: dict[str, Any]) -> str:
    role = str(message.get("role", ""))
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content else ""
    calls = message.get("tool_calls") or []
    shown = "".join(f"<pre>{_e(c.get('function', {}).get('name'))}({_e(c.get('function', {}).get('arguments'))})</pre>"
                    for c in calls)
    return f'<div class="msg {_e(role)}"><b>{_e(role)}</b> {_e(text)}{shown}</div>'


def _episode(title: str, view: EpisodeView) -> str:
    s, ep = view.scored, view.episode
    results = view.transcript.results if view.transcript else []
    calls = [c.model_dump(mode="json") for c in ep.calls]
    done = "".join(_call(i + 1, c, results[i] if i < len(results) else None) for i, c in enumerate(calls))
    messages = "".join(_message(m) for m in (view.transcript.messages if view.transcript else []))
    score = s.score
    details = {k: v for k, v in score.details.items() if v not in (None, [], {}) and k != ACTION_ONLY}
    verdict = (f'<div class="box"><p>{_verdict(score.passed)} · failure cause: {_e(s.failure_cause or "—")}</p>'
               f"<p>RESPONSE {_verdict(score.response)} <span class=\"meta\">{_e(score.response_method or '')}</span></p>"
               f"<p>ENVIRONMENT {_verdict(score.environment)}</p>"
               f"<p>Action {score.action:.3f}" + ("" if score.details.get(ACTION_ONLY) else
                                                 f" <span class=\"meta\">(Corr {score.correctness:.3f}, Eff "
                                                 f"{score.efficiency:.3f}, ungated {score.action_raw:.3f})</span>")
               + "</p>"
               + (f"<p class=\"meta\">limits met: {_e(', '.join(s.limits))}</p>" if s.limits else "")
               + f"<details><summary>details</summary><pre>{_json(details)}</pre></details></div>")
    golden = "".join(
        f'<div class="box"><b>{_e(g.step) + ": " if g.step else ""}{_e(g.tool)}</b> <span class="meta">turn {g.turn}</span>'
        f"<pre>{_json(g.arguments)}</pre></div>" for g in view.target.calls)
    body = (f'<p><a href="../index.html">← all episodes</a></p><h1>{_e(s.task_id)} '
            f'<span class="meta">{_e(s.domain)} · seed {s.seed} · rollout {s.rollout} · {_e(s.policy)}</span></h1>'
            f'<div class="box"><b>query</b><p>{_e(view.task.query)}</p></div>'
            f'<div class="cols"><section><h2>This episode</h2>{verdict}'
            + (f"<h2>Messages</h2>{messages}" if messages else "")
            + f"<h2>Tool calls ({len(calls)})</h2>{done or '<p class=meta>no call</p>'}"
            f'<h2>Final answer</h2><div class="box">{_e(ep.answer) if ep.answer else "<span class=na>none</span>"}</div>'
            f"</section><section><h2>Golden trajectory</h2>{golden}"
            f'<h2>Target answer</h2><div class="box">{_e(view.target.answer or "—")}</div></section></div>')
    return _page(f"{s.task_id} · {title}", body)


def site_digest(index: Path) -> str:
    """A digest of every page of a written site (tests: the same run gives the same bytes)."""
    digest = hashlib.sha256()
    for path in sorted(index.parent.rglob("*.html")):
        digest.update(path.relative_to(index.parent).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
