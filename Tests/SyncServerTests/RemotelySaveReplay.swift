import Foundation
import TestSupport

/// Remotely Save's WebDAV sync (the Obsidian plugin; `src/fsWebdav.ts` and its sync algorithm),
/// replayed request by request against `/dav/`, so the server is met the way that client meets
/// it: `OPTIONS` for the server's compliance, a `Depth: 0` `PROPFIND` that the base folder is
/// there (a `MKCOL` when it is not), a breadth-first walk of `Depth: 1` `PROPFIND`s (ten folders at a time), then for each
/// path a decision from the sizes and modification times it recorded at its last sync: `GET` what
/// changed there, `MKCOL` and `PUT` (whole, with neither `If-Match` nor `X-OC-Mtime`: its
/// `putFileContents` sends `overwrite: true` alone) what changed here, followed by a `Depth: 0`
/// `PROPFIND` whose modification time and size it records, `DELETE` what was deleted here (an
/// error is logged and ignored: its `rm` catches it). When both sides changed a file, the newer
/// modification time wins and the other is overwritten, as its default "keep newer" does; on
/// VaultSync that write is merged with the edit it never read, or kept as a conflict record.
struct RemotelySaveReplay {
    let dav: WebDAVTests.DAVClient
    /// The base folder under `/dav/`: the vault's name (Remotely Save's default is the Obsidian
    /// vault's).
    let base: String
    /// The phone's vault, a real folder.
    let folder: URL
    /// What the last sync recorded of each path (Remotely Save keeps this in its local database).
    var previous: [String: Record] = [:]
    /// Every request sent, `METHOD path`.
    var requests: [String] = []
    /// What another device does while this sync runs, between its walk and its first change
    /// (a sync on a phone takes seconds); once.
    var duringSync: (@Sendable () async throws -> Void)?

    struct Record: Equatable {
        let localMtime: Int
        let remoteMtime: Int
        let size: Int64
    }

    struct Remote: Equatable {
        let mtime: Int
        let size: Int64
    }

    struct Outcome: Equatable {
        var downloaded: [String] = []
        var uploaded: [String] = []
        var deletedRemotely: [String] = []
        var deletedLocally: [String] = []
    }

    init(dav: WebDAVTests.DAVClient, base: String, folder: URL) {
        (self.dav, self.base, self.folder) = (dav, base, folder)
    }

    mutating func sync() async throws -> Outcome {
        let compliance = try await send("OPTIONS", "/dav/\(base)/")
        guard compliance.headers["dav"]?.contains("1") == true else { throw Failure("OPTIONS: no DAV compliance: \(compliance.headers)") }
        // Its base folder, made when it is not there (with the server's /dav/ as its address: a vault).
        if try await send("PROPFIND", "/dav/\(base)/", headers: ["Depth": "0"]).status == 404 {
            let made = try await send("MKCOL", "/dav/\(base)/")
            guard made.status == 201 else { throw Failure("MKCOL /dav/\(base)/: \(made.status)") }
        }
        let (remote, folders) = try await walk()
        let local = try scan()
        if let duringSync {
            self.duringSync = nil
            try await duringSync()
        }
        var outcome = Outcome()
        for path in Set(remote.keys).union(local.keys).union(previous.keys).sorted() {
            let (here, there, before) = (local[path], remote[path], previous[path])
            let changedHere = here.map { before == nil || $0.mtime != before!.localMtime || $0.size != before!.size } ?? (before != nil)
            let changedThere = there.map { before == nil || $0.mtime != before!.remoteMtime || $0.size != before!.size } ?? (before != nil)
            switch (here, there) {
            case (nil, nil):
                previous[path] = nil
            case (let here?, nil):
                if before != nil, !changedHere {  // deleted there, unchanged here
                    try FileManager.default.removeItem(at: folder.appendingPathComponent(path))
                    previous[path] = nil
                    outcome.deletedLocally.append(path)
                } else {
                    try await upload(path, here, folders: folders)
                    outcome.uploaded.append(path)
                }
            case (nil, let there?):
                if before != nil, !changedThere {  // deleted here, unchanged there
                    // Its outcome is not checked (the plugin's `rm` swallows errors): a refused
                    // DELETE leaves the file there, and the next sync brings it back.
                    if try await send("DELETE", "/dav/\(base)/\(Self.encode(path))").status == 204 { outcome.deletedRemotely.append(path) }
                    previous[path] = nil
                } else {
                    try await download(path, there)
                    outcome.downloaded.append(path)
                }
            case (let here?, let there?):
                if changedHere && (!changedThere || here.mtime >= there.mtime) {
                    try await upload(path, here, folders: folders)
                    outcome.uploaded.append(path)
                } else if changedThere {
                    try await download(path, there)
                    outcome.downloaded.append(path)
                }
            }
        }
        return outcome
    }

    /// The breadth-first walk: every file below the base with its modification time and size,
    /// and every folder.
    private mutating func walk() async throws -> (files: [String: Remote], folders: Set<String>) {
        var files: [String: Remote] = [:]
        var folders: Set<String> = []
        var queue = ["/dav/\(base)/"]
        while !queue.isEmpty {
            let batch = queue
            queue = []
            for chunk in stride(from: 0, to: batch.count, by: 10).map({ Array(batch[$0..<min($0 + 10, batch.count)]) }) {
                for href in chunk {
                    let answer = try await send("PROPFIND", href, headers: ["Depth": "1"])
                    guard answer.status == 207 else { throw Failure("PROPFIND \(href): \(answer.status)") }
                    for entry in Self.entries(String(decoding: answer.body, as: UTF8.self)) where entry.href != href {
                        let path = String(entry.href.dropFirst("/dav/\(base)/".count)).removingPercentEncoding ?? entry.href
                        if entry.collection {
                            folders.insert(String(path.dropLast()))
                            queue.append(entry.href)
                        } else {
                            files[path] = Remote(mtime: entry.mtime, size: entry.size)
                        }
                    }
                }
            }
        }
        return (files, folders)
    }

    private mutating func upload(_ path: String, _ here: Remote, folders: Set<String>) async throws {
        var parent = ""
        for segment in path.split(separator: "/").dropLast() {
            parent += (parent.isEmpty ? "" : "/") + segment
            if !folders.contains(parent) {
                let made = try await send("MKCOL", "/dav/\(base)/\(Self.encode(parent))/")
                guard made.status == 201 || made.status == 405 else { throw Failure("MKCOL \(parent): \(made.status)") }
            }
        }
        let bytes = try Data(contentsOf: folder.appendingPathComponent(path))
        let put = try await send("PUT", "/dav/\(base)/\(Self.encode(path))", body: bytes)
        guard put.status == 201 || put.status == 204 else { throw Failure("PUT \(path): \(put.status) \(String(decoding: put.body, as: UTF8.self))") }
        let stat = try await send("PROPFIND", "/dav/\(base)/\(Self.encode(path))", headers: ["Depth": "0"])
        guard let entry = Self.entries(String(decoding: stat.body, as: UTF8.self)).first else { throw Failure("PROPFIND \(path) after PUT") }
        previous[path] = Record(localMtime: here.mtime, remoteMtime: entry.mtime, size: entry.size)
    }

    private mutating func download(_ path: String, _ there: Remote) async throws {
        let got = try await send("GET", "/dav/\(base)/\(Self.encode(path))")
        guard got.status == 200 else { throw Failure("GET \(path): \(got.status)") }
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try got.body.write(to: file)
        try Self.setMtime(file, there.mtime)
        previous[path] = Record(localMtime: there.mtime, remoteMtime: there.mtime, size: Int64(got.body.count))
    }

    /// The phone's files with their modification times (whole seconds) and sizes.
    private func scan() throws -> [String: Remote] {
        var found: [String: Remote] = [:]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return found }
        let root = folder.standardizedFileURL.path + "/"
        for case let url as URL in walker where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let mtime = Int((attributes[.modificationDate] as? Date ?? .distantPast).timeIntervalSince1970)
            found[String(url.standardizedFileURL.path.dropFirst(root.count))] = Remote(mtime: mtime, size: (attributes[.size] as? NSNumber)?.int64Value ?? 0)
        }
        return found
    }

    static func setMtime(_ file: URL, _ seconds: Int) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: TimeInterval(seconds))], ofItemAtPath: file.path)
    }

    private mutating func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> RawHTTP.Answer {
        requests.append("\(method) \(path)")
        return try await dav.send(method, path, body: body, headers: headers.merging(["Cache-Control": "no-cache"]) { $1 })
    }

    static func encode(_ path: String) -> String {
        path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? String($0) }.joined(separator: "/")
    }

    /// The responses of a multistatus: href, whether a collection, `getlastmodified` (seconds) and size.
    static func entries(_ xml: String) -> [(href: String, collection: Bool, mtime: Int, size: Int64)] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        func value(_ name: String, in block: Substring) -> String? {
            guard let open = block.range(of: "<D:\(name)>"), let close = block.range(of: "</D:\(name)>", range: open.upperBound..<block.endIndex) else { return nil }
            return String(block[open.upperBound..<close.lowerBound])
        }
        return xml.components(separatedBy: "<D:response>").dropFirst().map { block in
            let text = Substring(block)
            return (
                value("href", in: text) ?? "", text.contains("<D:collection/>"),
                Int(value("getlastmodified", in: text).flatMap(formatter.date(from:))?.timeIntervalSince1970 ?? 0),
                Int64(value("getcontentlength", in: text) ?? "0") ?? 0)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
