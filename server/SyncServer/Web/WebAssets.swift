import Foundation
import Hummingbird
import NIOCore

/// The web app's style sheet and script (``WebScript``), compiled into the server and served by Hummingbird's
/// `FileMiddleware` through ``EmbeddedFiles``: nothing to install beside the binary, no CDN.
enum WebAssets {
    static let files: [String: String] = ["/app.css": css, "/app.js": WebScript.js]

    static let css = """
        /* One scale for space (--s1 to --s6) and one for type (--text-s to --text-xl): every size below is one of them. */
        :root { --s1: .25rem; --s2: .5rem; --s3: .75rem; --s4: 1rem; --s5: 1.5rem; --s6: 2rem; --text-s: .875rem; --text-m: 1rem; --text-l: 1.25rem; --text-xl: 1.625rem; }
        :root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #5c5c66; --line: #d0d0d7; --accent: #0b57d0; --warn: #a4270f; --tag: #e9eef9; }
        @media (prefers-color-scheme: dark) { :root { --fg: #ececf1; --bg: #16161a; --muted: #a8a8b3; --line: #3a3a44; --accent: #8ab4ff; --warn: #ff9c85; --tag: #25304a; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
        a { color: var(--accent); }
        h2 { font-size: var(--text-l); line-height: 1.3; margin: var(--s5) 0 var(--s2); }
        h3 { font-size: var(--text-m); margin: var(--s4) 0 var(--s2); }
        p, ul, ol, dl, table, form { margin-top: 0; margin-bottom: var(--s4); }
        a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .skip { position: absolute; left: -9999px; }
        .skip:focus { left: var(--s4); top: var(--s4); background: var(--bg); padding: var(--s2); z-index: 1; }
        .bar { display: flex; flex-wrap: wrap; gap: var(--s4); align-items: center; justify-content: space-between; padding: var(--s3) var(--s4); border-bottom: 1px solid var(--line); }
        .bar nav { display: flex; flex-wrap: wrap; gap: var(--s2) var(--s4); align-items: center; }
        .brand { font-weight: 700; text-decoration: none; }
        main { max-width: 60rem; margin: 0 auto; padding: var(--s4); }
        h1 { font-size: var(--text-xl); line-height: 1.25; overflow-wrap: anywhere; }
        table { width: 100%; border-collapse: collapse; }
        th, td { text-align: left; padding: var(--s2); border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
        form.inline { display: inline-block; margin: 0 var(--s2) var(--s2) 0; }
        .bar form.inline { margin: 0; }
        form.stacked { display: grid; gap: var(--s2); max-width: 22rem; }
        .diff td { font-family: ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 var(--s2); }
        main pre, main code { white-space: pre-wrap; overflow-wrap: anywhere; }
        .diff td.num { color: var(--muted); width: 3rem; }
        .muted { color: var(--muted); }
        img.shown { max-width: 100%; height: auto; border: 1px solid var(--line); }
        .diff th { white-space: nowrap; }
        .diff.side td:not(.num) { width: 50%; }
        .removed, del { background: #fbe4e1; color: #7a1c0d; }
        .added, ins { background: #dff3e3; color: #11531f; text-decoration: none; }
        @media (prefers-color-scheme: dark) { .removed, del { background: #4a1f19; color: #ffd3ca; } .added, ins { background: #183a20; color: #c8f0d0; } }
        .inline-form { display: flex; flex-wrap: wrap; gap: var(--s2); align-items: center; }
        form.wide { max-width: none; }
        textarea { font: var(--text-s)/1.4 ui-monospace, monospace; width: 100%; padding: var(--s2); border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
        select, input { font: inherit; padding: var(--s2); border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
        button { font: inherit; padding: var(--s2) var(--s3); border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: var(--bg); cursor: pointer; }
        .error { color: var(--warn); font-weight: 600; }
        button.danger { background: var(--warn); border-color: var(--warn); }
        a.button { display: inline-block; font: inherit; padding: var(--s2) var(--s3); border: 1px solid var(--accent); border-radius: 4px; text-decoration: none; }
        ul.actions { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: var(--s2); }
        details { margin: var(--s2) 0; }
        .notice { background: var(--tag); padding: var(--s2) var(--s3); border-radius: 4px; margin: 0 0 var(--s4); }
        .tag { background: var(--tag); padding: 0 var(--s2); border-radius: 4px; font-size: var(--text-s); }
        .meta { color: var(--muted); }
        .actions a { margin-right: var(--s4); }
        .crumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: var(--s1); padding: 0; margin: 0 0 var(--s2); }
        .crumbs li + li::before { content: "/"; margin-right: var(--s1); color: var(--muted); }
        .vault-bar { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: var(--s2) var(--s4); margin: 0 0 var(--s2); }
        .vault-bar .crumbs ol { margin: 0; }
        form.search { display: flex; gap: var(--s1); flex: 0 1 22rem; min-width: 0; }
        form.search input { flex: 1 1 auto; min-width: 0; }
        ol.results { padding-left: var(--s4); }
        ol.results li { margin: 0 0 var(--s3); overflow-wrap: anywhere; }
        ol.results .snippet { margin: var(--s1) 0 0; color: var(--muted); }
        ol.results mark, mark.match { background: #ffe58a; color: #16161a; border-radius: 2px; }
        .hint { color: var(--muted); font-size: var(--text-s); }
        .fields dl { display: grid; grid-template-columns: max-content 1fr; gap: var(--s1) var(--s4); }
        .fields dt { font-weight: 600; }
        .fields dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
        .note { overflow-wrap: anywhere; }
        .outline { border: 1px solid var(--line); border-radius: 6px; padding: var(--s2) var(--s4); margin: var(--s4) 0; }
        .outline h2 { font-size: var(--text-m); margin: var(--s1) 0; }
        .outline ol { list-style: none; padding: 0; margin: 0; }
        .outline .depth-1 { padding-left: var(--s4); } .outline .depth-2 { padding-left: var(--s6); } .outline .depth-3, .outline .depth-4, .outline .depth-5 { padding-left: calc(3 * var(--s4)); }
        .chips { list-style: none; display: flex; flex-wrap: wrap; gap: var(--s1); margin: 0; padding: 0; }
        .chips li { background: var(--tag); border-radius: 1em; padding: 0 .6em; white-space: normal; }
        .note pre { white-space: pre; overflow-x: auto; background: var(--tag); padding: var(--s3); border-radius: 4px; }
        .note code { overflow-wrap: normal; }
        .note img { max-width: 100%; }
        .note blockquote { margin-left: 0; padding-left: var(--s4); border-left: 3px solid var(--line); color: var(--muted); }
        .note .table-scroll { overflow-x: auto; }
        .note .table-scroll table { width: auto; min-width: 50%; }
        .note th.align-center, .note td.align-center { text-align: center; }
        .note th.align-right, .note td.align-right { text-align: right; }
        .note code { background: var(--tag); padding: 0 .2em; border-radius: 3px; }
        .note pre code { background: none; padding: 0; }
        .note mark { background: #fff3a3; color: #1d1d1f; padding: 0 .1em; }
        .note .tag { background: var(--tag); border-radius: 1em; padding: 0 .45em; white-space: nowrap; }
        .note .wiki-unresolved { color: var(--muted); text-decoration: underline dotted; }
        .note .embed-card { display: inline-block; border: 1px solid var(--line); border-radius: 6px; padding: var(--s2) var(--s3); text-decoration: none; }
        .note .task { list-style: none; margin-left: -1.2rem; }
        .note .callout { border-left: 4px solid var(--accent); background: var(--tag); border-radius: 4px; padding: var(--s2) var(--s4); margin: var(--s4) 0; }
        .note .callout-title { font-weight: 600; margin: var(--s1) 0; }
        .note details.callout > summary { cursor: pointer; }
        .note .callout[data-callout="warning"], .note .callout[data-callout="caution"], .note .callout[data-callout="attention"] { border-left-color: #c77700; }
        .note .callout[data-callout="danger"], .note .callout[data-callout="error"], .note .callout[data-callout="bug"], .note .callout[data-callout="failure"] { border-left-color: var(--warn); }
        .note .callout[data-callout="tip"], .note .callout[data-callout="success"], .note .callout[data-callout="check"], .note .callout[data-callout="done"] { border-left-color: #1a7f37; }
        .note .footnotes { border-top: 1px solid var(--line); margin-top: var(--s6); font-size: var(--text-s); }
        .icon { vertical-align: -.15em; color: var(--muted); }
        .shown-pdf, .note .embed-pdf { display: block; width: 100%; height: 80vh; border: 1px solid var(--line); }
        .backlinks { border-top: 1px solid var(--line); margin-top: var(--s6); }
        .backlinks h2 { font-size: var(--text-m); }
        table.narrow-only { display: none; }
        .menu-toggle { display: none; }
        @media (max-width: 40rem) {
          .has-menu .menu-toggle { display: inline-block; background: var(--bg); color: var(--accent); }
          .has-menu .bar nav { display: none; width: 100%; flex-direction: column; align-items: stretch; gap: 0; }
          .has-menu .menu-toggle[aria-expanded="true"] + nav { display: flex; }
          .has-menu .bar nav a { padding: var(--s2) 0; border-top: 1px solid var(--line); }
          .has-menu .bar nav form { padding-top: var(--s2); border-top: 1px solid var(--line); }
          .wide-only { display: none !important; }
          table.narrow-only { display: table; }
          table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
          table.cards, table.cards tbody, table.cards tr { display: block; width: 100%; }
          table.cards tr { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 var(--s3); padding: var(--s2) var(--s3); }
          table.cards td, table.cards tbody th { display: block; position: relative; border: 0; padding: var(--s1) 0 var(--s1) calc(30% + var(--s3)); min-height: 1.9em; overflow-wrap: break-word; }
          table.cards td[data-label]::before, table.cards tbody th[data-label]::before { content: attr(data-label); position: absolute; left: 0; width: 30%; font-weight: 600; color: var(--muted); }
          table.cards td:not([data-label]), table.cards tbody th:not([data-label]) { padding-left: 0; }
        }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

        """
}

/// Files compiled into the server, for `FileMiddleware` (which brings `ETag`, `If-None-Match`,
/// ranges and content types).
struct EmbeddedFiles: FileProvider {
    struct Attributes: FileMiddlewareFileAttributes, Sendable {
        let isFolder = false
        let size: Int
        let modificationDate: Date
    }

    let files: [String: Data]
    /// The server's start: what `Last-Modified` says (the files change only with the binary).
    let built: Date

    init(_ files: [String: String], built: Date) {
        self.files = files.mapValues { Data($0.utf8) }
        self.built = built
    }

    func getFileIdentifier(_ path: String) -> String? { files[path] == nil ? nil : path }

    func getAttributes(id: String) async throws -> Attributes? {
        files[id].map { Attributes(size: $0.count, modificationDate: built) }
    }

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        ResponseBody(byteBuffer: ByteBuffer(bytes: files[id] ?? Data()))
    }

    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        let data = files[id] ?? Data()
        let slice = data[data.startIndex + range.lowerBound...data.startIndex + min(range.upperBound, data.count - 1)]
        return ResponseBody(byteBuffer: ByteBuffer(bytes: slice))
    }
}
