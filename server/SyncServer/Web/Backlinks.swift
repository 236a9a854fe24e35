import Foundation

/// Which notes link to a file (Obsidian's backlinks). What a note links to depends only on its
/// content, so it is read once per content (``links(in:)``) and kept by content hash
/// (``NoteLinkQueries``), never stale; a file's backlinks are then the notes whose kept links
/// name its file name (``nameKey(ofPath:)``) and, resolved from where each note is, land on it.
enum Backlinks {
    /// What a note links to, as the note's page renders it: links, images, wiki links, embeds.
    static func links(in markdown: String) -> [MarkdownHTML.Target] {
        var found: [MarkdownHTML.Target] = []
        _ = MarkdownHTML.document(markdown) { target in
            found.append(target)
            return nil
        }
        return found
    }

    /// The key a file is found by: its file name in lower case, without `.md` (as links leave it out).
    static func nameKey(ofPath path: String) -> String {
        let name = String(path.split(separator: "/").last ?? "").lowercased()
        return name.hasSuffix(".md") ? String(name.dropLast(3)) : name
    }

    /// The key of the file a link names (nil: a web address or an anchor of the note itself).
    static func nameKey(of target: MarkdownHTML.Target) -> String? {
        switch target {
        case .wiki(let name), .embed(let name):
            return name.isEmpty ? nil : nameKey(ofPath: name)
        case .link(let raw), .image(let raw):
            let path = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let decoded = path.removingPercentEncoding ?? path
            let scheme = decoded.firstIndex(of: ":").map { !decoded[..<$0].contains("/") } ?? false
            guard !scheme, let name = decoded.split(separator: "/").last else { return nil }
            return nameKey(ofPath: String(name))
        }
    }

    /// A link as kept: a letter for its kind, then the target as written.
    static func encode(_ target: MarkdownHTML.Target) -> String {
        switch target {
        case .link(let raw): "l" + raw
        case .image(let raw): "i" + raw
        case .wiki(let name): "w" + name
        case .embed(let name): "e" + name
        }
    }

    static func decode(_ kept: String) -> MarkdownHTML.Target? {
        let rest = String(kept.dropFirst())
        switch kept.first {
        case "l": return .link(rest)
        case "i": return .image(rest)
        case "w": return .wiki(rest)
        case "e": return .embed(rest)
        default: return nil
        }
    }

    /// The notes among `candidates` (path and kept links) with a link that lands on `path`, in
    /// path order; a note linking to itself is not its own backlink.
    static func linking(to path: String, candidates: [(source: String, links: [String])], wikiLinks: WikiLinks) -> [String] {
        candidates.filter { candidate in
            candidate.source != path && candidate.links.contains { kept in
                decode(kept).flatMap { WebApp.linkedPath($0, from: candidate.source, wikiLinks: wikiLinks) } == path
            }
        }.map(\.source).sorted()
    }
}
