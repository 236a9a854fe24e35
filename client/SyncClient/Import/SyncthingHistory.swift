public import Foundation
public import SyncCore

/// A Syncthing folder with its `.stversions` (simple, staggered or trash-can versioning) as a
/// ``HistorySource``: each file's archived versions, oldest first (by the time in their names),
/// then its current content; a file only archived (deleted in Syncthing) ends with a deletion at
/// the time its last version was archived. An archived version's time is its file's modification
/// time (Syncthing moves it there unchanged). Syncthing's own files are left out.
public final class SyncthingHistory: HistorySource, @unchecked Sendable {
    public let name: String
    public let leftOut: [String: String] = [:]
    private var files: [(path: String, versions: [Entry])]
    private var pending: [SourceVersion] = []

    private struct Entry {
        let url: URL?
        let tag: String?
    }

    /// Syncthing's files in a folder, never imported.
    static func isSyncthingFile(_ name: String) -> Bool {
        name == ".stfolder" || name == ".stignore" || name == ".stversions" || (name.hasPrefix(".syncthing.") && name.hasSuffix(".tmp"))
            || (name.hasPrefix("~syncthing~") && name.hasSuffix(".tmp"))
    }

    /// - Throws: ``HistorySourceError`` when `folder` is not a folder.
    public init(folder: URL) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw HistorySourceError("\(folder.path) is not a folder")
        }
        name = "syncthing: \(folder.standardizedFileURL.lastPathComponent)"
        var byPath: [String: [Entry]] = [:]
        for (path, url) in try Self.files(in: folder) where !path.split(separator: "/").contains(where: { Self.isSyncthingFile(String($0)) }) {
            byPath[path, default: []].append(Entry(url: url, tag: nil))
        }
        let versions = folder.appendingPathComponent(".stversions")
        var archived: [String: [Entry]] = [:]
        if FileManager.default.fileExists(atPath: versions.path) {
            for (path, url) in try Self.files(in: versions) {
                var parts = path.split(separator: "/").map(String.init)
                guard let tagged = parts.last.flatMap(SyncthingVersionName.init) else { continue }
                parts[parts.count - 1] = tagged.original
                archived[parts.joined(separator: "/"), default: []].append(Entry(url: url, tag: tagged.tag))
            }
        }
        for (path, entries) in archived {
            let sorted = entries.sorted { $0.tag! < $1.tag! }
            // Only archived: deleted at the time its last version was archived.
            byPath[path] = sorted + (byPath[path] ?? [Entry(url: nil, tag: sorted.last?.tag)])
        }
        files = byPath.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        files.reverse()
    }

    /// Every regular file under `folder`, with its `/`-separated path relative to it.
    private static func files(in folder: URL) throws -> [(String, URL)] {
        let base = folder.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey]) else {
            throw HistorySourceError("\(folder.path) cannot be read")
        }
        var found: [(String, URL)] = []
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            guard values.isRegularFile == true, values.isSymbolicLink != true else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            found.append((String(path.dropFirst(base.count + 1)), url))
        }
        return found
    }

    public func next() throws -> SourceVersion? {
        while pending.isEmpty {
            guard let file = files.popLast() else { return nil }
            pending = try file.versions.map { entry in
                guard let url = entry.url else {
                    return SourceVersion(path: file.path, content: nil, time: Self.time(ofTag: entry.tag ?? "") ?? Date(), origin: "syncthing: deleted (its last version archived \(Self.shown(entry.tag)))")
                }
                let modified = try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate ?? Date()
                let origin = entry.tag.map { "syncthing: a version archived \(Self.shown($0)) (.stversions)" } ?? "syncthing: the folder's current file"
                return SourceVersion(path: file.path, content: try Data(contentsOf: url), time: modified, origin: origin)
            }.reversed()
        }
        return pending.popLast()
    }

    /// A tag's time, in this device's zone (Syncthing writes the archiving device's local time).
    static func time(ofTag tag: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.date(from: tag)
    }

    /// A tag as a person reads it: `2026-12-05 13:01:24`.
    static func shown(_ tag: String?) -> String {
        guard let tag, tag.count == 15 else { return tag ?? "?" }
        let t = Array(tag)
        return "\(String(t[0..<4]))-\(String(t[4..<6]))-\(String(t[6..<8])) \(String(t[9..<11])):\(String(t[11..<13])):\(String(t[13..<15]))"
    }

    public func close() {}
}
