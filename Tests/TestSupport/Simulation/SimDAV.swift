import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The simulation's WebDAV client, as rclone or Remotely Save is one: a person's app password,
/// the vault's files under `/dav/VAULT/` (the owner's `default`, another member's by the vault's
/// id), each request through the balancer in front of the server instances. It reads a note, keeps it with its ETag, and later writes it back, with
/// `If-Match` (a careful client) or without (a blind one).
struct SimDAV: Sendable {
    let server: URL
    let email: String
    let password: String
    /// The vault's segment of the URL.
    let vault: String
    let route: @Sendable (URL) -> URL

    /// A note as read: its text and ETag.
    struct Read: Sendable {
        let text: String
        let etag: String
    }

    /// What a write came to.
    enum Written: Equatable {
        case written
        /// A blind write over an edit the client never read: merged with it (`X-VaultSync-Write: merged`).
        case merged
        /// A blind write kept as a conflict record beside the current version (`conflict`).
        case keptAsConflict
        /// A blind write the current version held already (`unchanged`).
        case unchanged
        /// `412`: the file is not at the version the client named; nothing was written.
        case refused
        /// `403`: the person may not write (a reader); nothing was written.
        case forbidden
    }

    struct UnexpectedAnswer: Error, CustomStringConvertible {
        let method: String
        let path: String
        let status: Int
        let body: String
        var description: String { "WebDAV \(method) \(path) answered \(status): \(body)" }
    }

    /// `path`'s current text and ETag; nil when it has none.
    func get(_ path: String) async throws -> Read? {
        let (status, headers, body) = try await send("GET", path)
        if status == 404 { return nil }
        guard status == 200, let etag = headers["etag"] else { throw UnexpectedAnswer(method: "GET", path: path, status: status, body: body) }
        return Read(text: body, etag: etag)
    }

    /// Writes `text` to `path`, only over the version of `ifMatch` when given (`.some(nil)`: only
    /// where there is no file), making its folders first as clients do (`MKCOL`).
    func put(_ path: String, _ text: String, ifMatch: String??) async throws -> Written {
        let folders = path.split(separator: "/").dropLast()
        for depth in folders.indices {
            let folder = folders[...depth].joined(separator: "/") + "/"
            let (status, _, body) = try await send("MKCOL", folder)
            if status == 403 { return .forbidden }
            guard [201, 405].contains(status) else { throw UnexpectedAnswer(method: "MKCOL", path: folder, status: status, body: body) }
        }
        var headers: [String: String] = [:]
        switch ifMatch {
        case .some(.some(let etag)): headers["If-Match"] = etag
        case .some(.none): headers["If-None-Match"] = "*"
        case .none: break
        }
        let (status, fields, body) = try await send("PUT", path, body: Data(text.utf8), headers: headers)
        if status == 412 && ifMatch != nil { return .refused }
        if status == 403 { return .forbidden }
        guard [201, 204].contains(status) else { throw UnexpectedAnswer(method: "PUT", path: path, status: status, body: body) }
        switch fields["x-vaultsync-write"] {
        case nil: return .written
        case "merged": return .merged
        case "conflict": return .keptAsConflict
        case "unchanged": return .unchanged
        case let other?: throw UnexpectedAnswer(method: "PUT", path: path, status: status, body: "X-VaultSync-Write: \(other)")
        }
    }

    private func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, [String: String], String) {
        var url = server.appendingPathComponent("dav").appendingPathComponent(vault)
        for component in path.split(separator: "/") { url.appendPathComponent(String(component)) }
        if path.hasSuffix("/") { url = URL(string: url.absoluteString + "/")! }
        var request = HTTPClientRequest(url: route(url).absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Authorization", value: "Basic " + Data("\(email):\(password)".utf8).base64EncodedString())
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let bytes = Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return (Int(response.status.code), fields, String(decoding: bytes, as: UTF8.self))
    }
}
