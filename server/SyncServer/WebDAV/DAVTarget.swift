import Foundation
import SyncProtocol

/// Where a WebDAV request points: `/dav/{vault}/{path}`, the vault by name or id. Pure: parsed from
/// the request's percent-encoded path, and written back as an href.
struct DAVTarget: Equatable, Sendable {
    /// The vault, as the URL names it (a name or an id).
    let vault: String
    /// The path inside the vault without a leading or trailing `/`; "" for the vault's root.
    let path: String
    /// Whether the URL ended in `/` (a collection, by the client's account).
    let trailingSlash: Bool

    static let prefix = "/dav/"

    /// The folder prefix of `path` as the vault's listings take it: "" for the root, else `path/`.
    var folderPrefix: String { path.isEmpty ? "" : path + "/" }

    /// Parses a request path (percent-encoded, without the query); nil when it is not under
    /// `/dav/{vault}`.
    /// Each segment is decoded and normalised (``VaultPath/normalised(_:)``), for every method
    /// alike: a name a Mac or an iPhone sends in NFD is the name stored in NFC.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for encoding that does not decode, an empty
    ///   segment inside the path, a `.` or `..` segment, or a control character (`%00`: a name
    ///   cut there would be another file's).
    static func parse(_ raw: String) throws -> DAVTarget? {
        // A fragment is never sent by a client that means the resource: refused, rather than
        // deleting what the URL without it names.
        guard !raw.contains("#") else { throw ServiceError.invalidRequest("a request URL carries no fragment ('#'): send the path alone") }
        let pathOnly = String(raw.prefix { $0 != "?" })
        guard pathOnly.hasPrefix(prefix) else { return nil }
        let rest = pathOnly.dropFirst(prefix.count)
        let trailingSlash = rest.hasSuffix("/")
        var segments = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if trailingSlash { segments.removeLast() }
        guard let first = segments.first, !first.isEmpty else { return nil }
        var decoded: [String] = []
        for segment in segments {
            guard let text = segment.removingPercentEncoding, !text.isEmpty, text != ".", text != "..", !text.contains("/") else {
                throw ServiceError.invalidRequest("'\(pathOnly.prefix(200))' is not a path this server takes")
            }
            guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ServiceError.invalidRequest("'\(pathOnly.prefix(200))' holds a control character (such as %00); no file name holds one")
            }
            decoded.append(VaultPath.normalised(text))
        }
        return DAVTarget(vault: decoded[0], path: decoded.dropFirst().joined(separator: "/"), trailingSlash: trailingSlash)
    }

    /// The target a `Destination` header names: an absolute URL or an absolute path.
    static func destination(_ header: String) throws -> DAVTarget? {
        let path = URLComponents(string: header)?.percentEncodedPath ?? header
        return try parse(path.isEmpty ? header : path)
    }

    /// Whether a `Destination` header names this server: an absolute path does, and an absolute
    /// URL does when its host and port are one of `authorities` (the request's `Host`, and the one
    /// a proxy forwarded). Another server's URL is not carried out here (RFC 4918 §9.8.5: `502`).
    static func isOnThisServer(_ header: String, authorities: [String]) -> Bool {
        guard let destination = URLComponents(string: header), let host = destination.host, !host.isEmpty else { return true }
        let scheme = destination.scheme?.lowercased() ?? "http"
        let defaultPort = scheme == "https" ? 443 : 80
        return authorities.contains { authority in
            guard let own = URLComponents(string: "\(scheme)://\(authority)"), let ownHost = own.host else { return false }
            return ownHost.lowercased() == host.lowercased() && (own.port ?? defaultPort) == (destination.port ?? defaultPort)
        }
    }

    /// The href of the resource a request named: its own spelling when that is not NFC (a name
    /// sent in NFD), so that a client finding its answer by the URL it asked for (webdav4 does)
    /// finds it; the NFC href otherwise.
    static func href(requested raw: String, vault: String, path: String, collection: Bool) -> String {
        let asSent = String(raw.prefix { $0 != "?" })
        guard let decoded = asSent.removingPercentEncoding, !decoded.unicodeScalars.elementsEqual(VaultPath.normalised(decoded).unicodeScalars) else {
            return href(vault: vault, path: path, collection: collection)
        }
        return collection && !asSent.hasSuffix("/") ? asSent + "/" : asSent
    }

    /// The href of `path` in `vault`, each segment percent-encoded; a collection's ends in `/`.
    static func href(vault: String, path: String, collection: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(prefix.utf8.count + vault.utf8.count + path.utf8.count + 16)
        bytes += prefix.utf8
        encode(vault.utf8, into: &bytes)
        if !path.isEmpty {
            bytes.append(0x2F)
            encode(path.utf8, into: &bytes)  // its `/`s stay: they separate segments
        }
        if collection { bytes.append(0x2F) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` percent-encoded but for RFC 3986's unreserved characters, the
    /// sub-delimiters a path segment may hold as they are, and `/`. By bytes: a listing writes an
    /// href per file, and Foundation's encoder costs more than the rest of the listing.
    private static func encode(_ text: String.UTF8View, into bytes: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text {
            if segmentAllowed[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
    }

    /// Which bytes a path keeps as they are: `A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; = : @ /`.
    private static let segmentAllowed: [Bool] = (0..<256).map { byte in
        byte < 128 && "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/".utf8.contains(UInt8(byte))
    }
}
