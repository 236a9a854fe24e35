import Foundation

/// Which file of the vault a `[[wiki link]]` names, as Obsidian resolves it: letter case does not
/// matter and `.md` may be left out; a path starting `./` or `../` is relative to the linking
/// note's folder; otherwise the file at that path from the vault's top, else the files whose path
/// ends with it (`[[plan]]` finds `projects/plan.md`): one of them in the linking note's folder if
/// there is one, else the shortest path (then the first in order, so every page agrees).
struct WikiLinks: Sendable {
    /// Live paths by their lowercased form.
    private let byPath: [String: String]
    /// Live paths by their lowercased file name.
    private let byName: [String: [String]]

    init(paths: [String]) {
        var byPath: [String: String] = [:], byName: [String: [String]] = [:]
        for path in paths.sorted() {
            let lower = path.lowercased()
            byPath[lower] = path
            byName[String(lower.split(separator: "/").last ?? ""), default: []].append(path)
        }
        (self.byPath, self.byName) = (byPath, byName)
    }

    /// The vault path `link` names from the note at `source`, or nil when no file has it.
    func resolve(_ link: String, from source: String) -> String? {
        if link.isEmpty { return source }
        if link.hasPrefix("./") || link.hasPrefix("../") {
            return WebApp.relative(link, from: source).flatMap { exact($0) }
        }
        let trimmed = link.hasPrefix("/") ? String(link.drop { $0 == "/" }) : link
        if let found = exact(trimmed) { return found }
        for candidate in Self.candidates(trimmed.lowercased()) {
            let name = String(candidate.split(separator: "/").last ?? "")
            let matches = (byName[name] ?? []).filter { $0.lowercased() == candidate || $0.lowercased().hasSuffix("/" + candidate) }
            guard !matches.isEmpty else { continue }
            let folder = WebApp.folderOf(source)
            if let near = matches.first(where: { WebApp.folderOf($0) == folder }) { return near }
            return matches.min { ($0.count, $0) < ($1.count, $1) }
        }
        return nil
    }

    /// The file at `path` from the vault's top (with `.md` added when it names none).
    private func exact(_ path: String) -> String? {
        for candidate in Self.candidates(path.lowercased()) { if let found = byPath[candidate] { return found } }
        return nil
    }

    /// `path`, then `path.md` (Obsidian leaves a note's extension out of its links).
    private static func candidates(_ path: String) -> [String] {
        path.hasSuffix(".md") ? [path] : [path + ".md", path]
    }
}
