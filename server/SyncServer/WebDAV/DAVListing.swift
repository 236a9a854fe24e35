import Crypto
import Foundation
import Postgres

/// A file or folder as WebDAV shows it.
struct DAVResource: Equatable, Sendable {
    /// Inside the vault, without a leading or trailing `/` ("" for the vault's root).
    let path: String
    let collection: Bool
    let sizeBytes: Int64
    let modified: Date
    /// Strong: a file's is its content hash; a folder's changes whenever anything below it changes.
    let etag: String
    /// For a file only.
    let version: Int?
}

/// What a `PROPFIND` of depth 0 or 1 finds, from the live files under a folder and the empty
/// collections made over WebDAV. Pure.
enum DAVListing {
    /// A collection made over WebDAV that holds no file yet.
    struct Collection: Equatable, Sendable {
        let path: String
        let createdAt: Date
    }

    /// The folder `path` ("" for the root) and, with `depth` 1, its members; nil when there is no
    /// such folder. `entries` are the live files below it and `collections` the empty ones at or
    /// below it.
    static func folder(_ path: String, depth: Int, entries: [BrowseQueries.Entry], collections: [Collection]) -> [DAVResource]? {
        let prefix = path.isEmpty ? "" : path + "/"
        let below = entries.filter { $0.path.hasPrefix(prefix) }
        let empty = collections.filter { $0.path == path || $0.path.hasPrefix(prefix) }
        guard path.isEmpty || !below.isEmpty || !empty.isEmpty else { return nil }
        var resources = [summary(path, files: below, collections: empty.filter { $0.path != path }, own: empty.first { $0.path == path })]
        guard depth > 0 else { return resources }
        var subfolders: [String: (files: [BrowseQueries.Entry], collections: [Collection])] = [:]
        for entry in below {
            let rest = entry.path.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/") {
                subfolders[prefix + rest[..<slash], default: ([], [])].files.append(entry)
            } else {
                resources.append(file(entry))
            }
        }
        for collection in empty where collection.path != path {
            let rest = collection.path.dropFirst(prefix.count)
            let child = prefix + (rest.firstIndex(of: "/").map { rest[..<$0] } ?? rest)
            subfolders[String(child), default: ([], [])].collections.append(collection)
        }
        for (child, content) in subfolders.sorted(by: { $0.key < $1.key }) {
            resources.append(summary(child, files: content.files, collections: content.collections.filter { $0.path != child }, own: content.collections.first { $0.path == child }))
        }
        return resources
    }

    static func file(_ entry: BrowseQueries.Entry) -> DAVResource {
        DAVResource(path: entry.path, collection: false, sizeBytes: entry.sizeBytes, modified: entry.updatedAt, etag: etag(entry.contentHash ?? ""), version: entry.version)
    }

    /// A file's ETag: the first 128 bits of its content's SHA-256 in hex, quoted. Strong and the
    /// same on every instance; not the whole hash, because clients keep `If` headers in small
    /// buffers (litmus's are 200 bytes, and a lock token and two ETags go in one).
    static func etag(_ contentHash: String) -> String {
        let hex = contentHash.hasPrefix("sha256:") ? contentHash.utf8.dropFirst(7) : contentHash.utf8[...]
        return "\"" + (Substring(hex.prefix(32))) + "\""
    }

    /// A folder: its newest change below, and an ETag over every path and version below it.
    private static func summary(_ path: String, files: [BrowseQueries.Entry], collections: [Collection], own: Collection?) -> DAVResource {
        var hasher = SHA256()
        for entry in files { hasher.update(data: Data("\(entry.path)\u{0}\(entry.version)\n".utf8)) }
        for collection in collections + (own.map { [$0] } ?? []) { hasher.update(data: Data("\(collection.path)\u{0}/\n".utf8)) }
        let etag = "\"" + hasher.finalize().prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        let newest = (files.map(\.updatedAt) + collections.map(\.createdAt) + (own.map { [$0.createdAt] } ?? [])).max() ?? Date(timeIntervalSince1970: 0)
        return DAVResource(path: path, collection: true, sizeBytes: 0, modified: newest, etag: etag, version: nil)
    }

    /// The `Content-Type` a file is served with (and `getcontenttype` says).
    static func contentType(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        return contentTypes[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    private static let contentTypes = [
        "md": "text/markdown; charset=utf-8", "markdown": "text/markdown; charset=utf-8", "txt": "text/plain; charset=utf-8",
        "json": "application/json", "canvas": "application/json", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "pdf": "application/pdf", "css": "text/css", "csv": "text/csv",
    ]

    /// RFC 1123's date, as `getlastmodified` and `Last-Modified` carry it. Written by hand: a
    /// listing writes one per file, and a `DateFormatter` each would cost more than the listing.
    static func httpDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = PostgresTimestamp.civil(fromDays: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[weekday]), \(two(day)) \(months[Int(month) - 1]) \(year) \(two(time / 3600)):\(two(time % 3600 / 60)):\(two(time % 60)) GMT"
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
