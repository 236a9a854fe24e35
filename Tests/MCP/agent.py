#!/usr/bin/env python3
"""An agent reaching a vault through VaultSync's /mcp endpoint with the official MCP Python client
(`mcp` from PyPI, Streamable HTTP), as AgentMCPTests seeds it: lists, reads, searches, writes
through a folder-scoped token; a write over a stale base merged, one over the same line kept as a
conflict; history, a diff and a restore; resources; a read-only token's write refused; a token
revoked between two calls refused at the next. Prints a JSON report; exits 1 on any failure.

Usage: MCP_URL=… FOLDER_TOKEN=… WHOLE_TOKEN=… READ_TOKEN=… FOLDER_DEVICE=… ACCESS_TOKEN=… SERVER=… agent.py
"""
import asyncio, contextlib, json, os, sys, traceback
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

env = os.environ
report = {"failures": [], "steps": []}


def check(condition, message):
    if not condition:
        report["failures"].append(message)


@contextlib.asynccontextmanager
async def session(token):
    # The SDK's own client and timeouts (30 s, 300 s to read), as `streamable_http_client` makes
    # when given none: httpx's bare default of 5 s failed this under a loaded CI run.
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(env["MCP_URL"], http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                yield s


async def call(s, tool, arguments):
    result = await s.call_tool(tool, arguments)
    text = result.content[0].text if result.content else ""
    return result.is_error, (json.loads(text) if not result.is_error else text)


PLAN = "# Plan\n\nline one\nline two\nline three\n"


async def main():
    async with session(env["FOLDER_TOKEN"]) as agent:
        report["steps"].append("folder token")
        tools = {t.name for t in (await agent.list_tools()).tools}
        check(tools == {"list_notes", "read_note", "search_notes", "note_history", "diff_versions", "write_note", "restore_version"}, f"tools: {tools}")
        error, listed = await call(agent, "list_notes", {})
        check(not error and [n["path"] for n in listed["notes"]] == ["Projects/ideas.md", "Projects/plan.md"], f"list_notes: {listed}")
        error, page = await call(agent, "list_notes", {"limit": 1})
        check(not error and len(page["notes"]) == 1 and page.get("next_cursor"), f"a page: {page}")
        error, rest = await call(agent, "list_notes", {"limit": 1, "cursor": page["next_cursor"]})
        check(not error and [n["path"] for n in rest["notes"]] == ["Projects/plan.md"] and not rest.get("next_cursor"), f"the next page: {rest}")
        error, outside = await call(agent, "read_note", {"path": "secret.md"})
        check(error and "not found" in outside, f"a note outside the folder: {outside}")
        error, outside = await call(agent, "list_notes", {"under": "Private"})
        check(not error and outside["notes"] == [], f"a folder outside: {outside}")
        error, found = await call(agent, "search_notes", {"query": "harbour"})
        check(not error and [r["path"] for r in found["results"]] == ["Projects/ideas.md"], f"search stays in the folder: {found}")
        check(not error and "«harbour»" in found["results"][0]["snippet"], f"a snippet: {found}")
        error, note = await call(agent, "read_note", {"path": "Projects/plan.md"})
        check(not error and note["text"] == PLAN, f"read_note: {note}")
        base = note["version"]

        # Someone else edits the first line after the agent read the note.
        async with session(env["WHOLE_TOKEN"]) as other:
            report["steps"].append("another writer")
            error, written = await call(other, "write_note", {"path": "Projects/plan.md", "text": PLAN.replace("line one", "line one, edited elsewhere"), "base_version": base})
            check(not error and written["outcome"] == "written", f"the other write: {written}")
        # The agent's edit of the last line, on the version it read: merged, both edits kept.
        error, merged = await call(agent, "write_note", {"path": "Projects/plan.md", "text": PLAN.replace("line three", "line three, by the agent"), "base_version": base})
        check(not error and merged["outcome"] == "merged", f"a stale base merges: {merged}")
        error, note = await call(agent, "read_note", {"path": "Projects/plan.md"})
        check(not error and "line one, edited elsewhere" in note["text"] and "line three, by the agent" in note["text"], f"both edits: {note}")
        # The same line edited on both sides: kept as a conflict record, the note unchanged.
        error, conflict = await call(agent, "write_note", {"path": "Projects/plan.md", "text": PLAN.replace("line one", "line one, the agent's way"), "base_version": base})
        check(not error and conflict["outcome"] == "conflict" and conflict.get("conflict_id"), f"a conflict: {conflict}")
        error, after = await call(agent, "read_note", {"path": "Projects/plan.md"})
        check(not error and after["text"] == note["text"], "a conflict changes nothing")
        error, history = await call(agent, "note_history", {"path": "Projects/plan.md"})
        check(not error and [v["by"] for v in history["versions"]][:2] == ["Research agent", "Whole vault"], f"history names the tokens: {history}")
        error, diff = await call(agent, "diff_versions", {"path": "Projects/plan.md", "from": base, "to": note["version"]})
        check(not error and "-line three" in diff["diff"] and "+line three, by the agent" in diff["diff"], f"diff: {diff}")
        error, restored = await call(agent, "restore_version", {"path": "Projects/plan.md", "version": base})
        check(not error and restored["outcome"] == "restored", f"restore: {restored}")
        error, made = await call(agent, "write_note", {"path": "Projects/new.md", "text": "A new note from the agent.\n"})
        check(not error and made["outcome"] == "written" and made["version"] == 1, f"a new note: {made}")
        error, refused = await call(agent, "write_note", {"path": "secret.md", "text": "overwritten?"})
        check(error and "not found" in refused, f"a write outside the folder: {refused}")
        error, bad = await call(agent, "read_note", {})
        check(error and "needs 'path'" in bad, f"a bad call: {bad}")
        resources = await agent.list_resources()
        uris = [str(r.uri) for r in resources.resources]
        check(uris == ["vaultsync:///Projects/ideas.md", "vaultsync:///Projects/new.md", "vaultsync:///Projects/plan.md"], f"resources: {uris}")
        content = await agent.read_resource("vaultsync:///Projects/new.md")
        check(content.contents[0].text == "A new note from the agent.\n", f"a resource: {content}")

    async with session(env["READ_TOKEN"]) as reader:
        report["steps"].append("read-only token")
        tools = {t.name for t in (await reader.list_tools()).tools}
        check("write_note" not in tools and "search_notes" in tools, f"a reader's tools: {tools}")
        error, refused = await call(reader, "write_note", {"path": "Projects/plan.md", "text": "no", "base_version": 1})
        check(error and "read only" in refused, f"a read-only write: {refused}")
        error, read = await call(reader, "read_note", {"path": "secret.md"})
        check(not error and read["text"] == "private harbour notes\n", f"a whole-vault read: {read}")

    # A token revoked between two calls is refused at the next.
    async with session(env["FOLDER_TOKEN"]) as agent:
        report["steps"].append("revoked token")
        error, _ = await call(agent, "list_notes", {})
        check(not error, "the token works before it is revoked")
        async with create_mcp_http_client() as http:
            answer = await http.delete(f"{env['SERVER']}/devices/{env['FOLDER_DEVICE']}",
                                       headers={"Authorization": f"Bearer {env['ACCESS_TOKEN']}", "X-VaultSync-Protocol": "1"})
            check(answer.status_code in (200, 204), f"revoking: {answer.status_code} {answer.text}")
        try:
            error, answer = await call(agent, "list_notes", {})
            report["failures"].append(f"a revoked token was answered: {answer}")
        except Exception as refused:  # the client raises for the endpoint's answer, which says why:
            async with create_mcp_http_client() as http:
                raw = await http.post(env["MCP_URL"], json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                      headers={"Authorization": f"Bearer {env['FOLDER_TOKEN']}", "Accept": "application/json, text/event-stream"})
            report["steps"].append(f"refused after revocation: {type(refused).__name__}; {raw.status_code} {raw.text[:300]}")


try:
    asyncio.run(main())
except Exception:
    report["failures"].append(traceback.format_exc()[-3000:])
print(json.dumps(report))
sys.exit(1 if report["failures"] else 0)
