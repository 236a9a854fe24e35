import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SyncProtocol

/// `PROPFIND`, `GET` and `HEAD`.
extension WebDAVServer {
    func propfind(_ request: Request, _ context: Context, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        let asked = try Self.depth(request)
        let body = try PropfindBody.parse(try await Self.smallBody(request))
        // Infinity on a file is the file alone (what fsspec sends to read one file's properties).
        let depth: Int
        if let asked {
            depth = asked
        } else if !target.path.isEmpty, try await vault.davFile(scope, path: target.path) != nil {
            depth = 0
        } else {
            guard try await vault.davFolderExists(scope, path: target.path) else {
                throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
            }
            throw Self.finiteDepthOnly
        }
        guard let resources = try await vault.davListing(scope, path: target.path, depth: depth) else {
            throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
        }
        let dead = try await vault.davProperties(scope, paths: resources.map(\.path))
        let locks = try await vault.davLocks(scope, around: target.path)
        let now = now()
        return Self.multistatus(resources.map { resource in
            let lockdiscovery = DAVLockXML.discovery(DAVLockRule.covering(resource.path, locks), vault: target.vault, now: now)
            return DAVProperties.entry(
                resource,
                href: resource.path == target.path
                    ? DAVTarget.href(requested: request.uri.path, vault: target.vault, path: target.path, collection: resource.collection)
                    : DAVTarget.href(vault: target.vault, path: resource.path, collection: resource.collection),
                displayName: DAVProperties.displayName(resource.path, vault: scope.vaultName), body: body,
                dead: dead[resource.path] ?? [], lockdiscovery: lockdiscovery)
        })
    }

    /// A file's bytes (a `Range` of them), streamed from the blob store; a folder answers with a
    /// line saying what it is.
    func get(_ request: Request, _ scope: VaultScope, _ target: DAVTarget, head: Bool) async throws -> Response {
        guard !target.path.isEmpty, let file = try await vault.davFile(scope, path: target.path) else {
            guard try await vault.davFolderExists(scope, path: target.path) else {
                throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
            }
            return DAVErrors.text(.ok, "'\(target.path.isEmpty ? scope.vaultName : target.path)' is a folder: open it with a WebDAV client")
        }
        let resource = DAVListing.file(file)
        var headers: HTTPFields = [
            .contentType: DAVListing.contentType(file.path), .eTag: resource.etag, .lastModified: DAVListing.httpDate(file.updatedAt), .acceptRanges: "bytes",
        ]
        if let wanted = request.headers[.ifNoneMatch], Self.matches(wanted, etag: resource.etag, weak: true) {
            if !head { try await vault.davSaw(scope, [file.path: file.version]) }  // it holds these bytes
            return Response(status: .notModified, headers: headers)
        }
        var (status, offset, length) = (HTTPResponse.Status.ok, Int64(0), file.sizeBytes)
        if request.headers[.ifRange].map({ $0 == resource.etag }) ?? true {
            switch DAVRange.resolve(request.headers[.range], size: file.sizeBytes) {
            case .whole: break
            case .part(let start, let count):
                (status, offset, length) = (.partialContent, start, count)
                headers[.contentRange] = "bytes \(start)-\(start + count - 1)/\(file.sizeBytes)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(file.sizeBytes)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        headers[.contentLength] = String(length)
        // A read of the bytes to their end is what this client saw (a `PROPFIND` is not).
        if !head, offset + length == file.sizeBytes { try await vault.davSaw(scope, [file.path: file.version]) }
        guard !head, length > 0, let hash = file.contentHash else { return Response(status: status, headers: headers) }
        let content = try await vault.blobs.store.read(BlobKey(vaultID: scope.vaultID, contentHash: ContentHash(alreadyValidated: hash)), from: offset)
        return Response(status: status, headers: headers, body: content.responseBody(length: length))
    }

    /// Whether an `If-Match` (`weak: false`) or `If-None-Match` (`weak: true`) list names `etag`
    /// (a strong tag), or is `*`. RFC 7232 §2.3.2: `If-Match` compares strongly, so a weak tag
    /// `W/"…"` never matches there (the bytes it stood for may differ); `If-None-Match` compares
    /// weakly, ignoring the `W/`.
    static func matches(_ header: String, etag: String, weak: Bool) -> Bool {
        header.trimmingCharacters(in: .whitespaces) == "*"
            || header.split(separator: ",").contains { listed in
                let tag = listed.trimmingCharacters(in: .whitespaces)
                return tag == etag || (weak && tag.hasPrefix("W/") && tag.dropFirst(2) == etag)
            }
    }
}
