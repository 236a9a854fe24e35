import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SyncProtocol

/// `PUT`, `DELETE` and `MKCOL`: each the vault's own write (``VaultService`` `dav…`).
extension WebDAVServer {
    /// A file's next version. With `If-Match` it replaces only the version whose ETag it names
    /// and with `If-None-Match: *` only nothing (`412` otherwise, nothing changed); without them it
    /// replaces whatever is current (which stays in history). The body is hashed as it arrives,
    /// stored once, and written as a committing push of those bytes.
    func put(_ request: Request, _ context: Context, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        guard !target.path.isEmpty, !target.trailingSlash else { throw DAVFailure(status: .methodNotAllowed, message: "a folder takes no PUT: put a file into it") }
        let path = try VaultPath(target.path)
        let current = try await vault.davFile(scope, path: target.path)
        if current == nil, try await vault.davFolderExists(scope, path: target.path) {
            throw DAVFailure(status: .methodNotAllowed, message: "'\(target.path)' is a folder")
        }
        try await requireParent(scope, target)
        try await admit(request, scope, target, [current != nil ? .content(target.path) : .membership(target.path)])
        // Before the body is read: a write its preconditions refuse receives and stores nothing.
        try Self.checkPreconditions(request, current: current.map { DAVListing.file($0).etag })
        let limit = try await vault.davMaxFileBytes(scope)
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > limit {
            throw ServiceError.fileTooLarge(path: path, size: declared, limit: limit)
        }
        let mtime = try Self.mtime(request)
        let body = try await SpooledBody.spool(request.body, in: spool, path: path, limit: limit, io: io)
        defer { body.remove() }
        let conditional = request.headers[.ifMatch] != nil || request.headers[.ifNoneMatch] != nil
        var response = try await write(body, scope, path, conditional: conditional, mtime: mtime, logger: context.logger) {
            try Self.checkPreconditions(request, current: $0)
        }
        if mtime != nil { response.headers[Self.mtimeHeader] = "accepted" }
        return response
    }

    static let mtimeHeader = HTTPField.Name("X-OC-Mtime")!

    /// The modification time a client gives the file (`X-OC-Mtime`, seconds since 1970, as
    /// Nextcloud takes it), which WebDAV then lists for this version.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for a value that is not such a time.
    static func mtime(_ request: Request) throws -> Date? {
        guard let value = request.headers[mtimeHeader]?.trimmingCharacters(in: .whitespaces) else { return nil }
        guard let seconds = Double(value), seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 else {
            throw ServiceError.invalidRequest("X-OC-Mtime is the file's modification time in seconds since 1970, not '\(value.prefix(40))'")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// `body` as the next version of `path` (its bytes stored first unless the vault has them).
    /// `conditional`: `check` decides against the ETag current then (nil: no file) whether it may
    /// be written, and a version written in between refuses it (`412`); otherwise it replaces
    /// whatever is current when the write holds the vault's lock, so concurrent writers all land,
    /// one after the other, each in history.
    func write(
        _ body: SpooledBody, _ scope: VaultScope, _ path: VaultPath, conditional: Bool, mtime: Date? = nil, logger: Logger, check: (String?) throws -> Void
    ) async throws -> Response {
        let watermark = try await vault.davWatermark()
        var stored = false
        if try await !vault.davKnows(scope, hash: body.hash, sizeBytes: body.sizeBytes) {
            let current = try await vault.davFile(scope, path: path.rawValue)
            try await vault.davQuotaCheck(scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: current.map { .version($0.version) } ?? .absent)
            try await vault.blobs.store.write(try await body.chunks(io: io), key: BlobKey(vaultID: scope.vaultID, contentHash: body.hash), sizeBytes: body.sizeBytes)
            stored = true
        }
        do {
            let current = try await vault.davFile(scope, path: path.rawValue)
            try check(current.map { DAVListing.file($0).etag })
            let base: VaultService.DAVBase = conditional ? current.map { .version($0.version) } ?? .absent : .current
            switch try await vault.davPut(scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: base, watermark: watermark, mtime: mtime) {
            case .written:
                // New or replaced as seen just before; another writer in between may make it the other.
                var response = Response(status: current == nil ? .created : .noContent)
                response.headers[.eTag] = DAVListing.etag(body.hash.rawValue)
                return response
            case .changed:
                throw DAVFailure(status: .preconditionFailed, message: "'\(path)' changed while this was written; nothing was written: read it again")
            case .rejected(let rejected):
                throw Self.failure(rejected)
            }
        } catch {
            // A write refused after its bytes were stored leaves none behind (unless something
            // came to name them meanwhile).
            if stored { await vault.discardUnnamed(scope, hashes: [body.hash.rawValue]) }
            throw error
        }
    }

    /// `If-Match` and `If-None-Match` against the current ETag (nil: no file).
    static func checkPreconditions(_ request: Request, current: String?) throws {
        if let wanted = request.headers[.ifMatch], current.map({ !matches(wanted, etag: $0, weak: false) }) ?? true {
            throw DAVFailure(status: .preconditionFailed, message: "the file is not at the version this client last saw (If-Match); nothing was written: read it again")
        }
        if let unwanted = request.headers[.ifNoneMatch], let current, matches(unwanted, etag: current, weak: true) {
            throw DAVFailure(status: .preconditionFailed, message: "a file is there already (If-None-Match); nothing was written")
        }
    }

    /// A file's tombstone, or a folder's: every live file below it in one change.
    func delete(_ request: Request, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        guard !target.path.isEmpty else { throw DAVFailure(status: .forbidden, message: "the vault itself is not deleted over WebDAV: delete it in the web app or with vaultsync") }
        try await admit(request, scope, target, [.membership(target.path)])
        if let wanted = request.headers[.ifMatch] {
            let current = try await vault.davFile(scope, path: target.path)
            guard let current, Self.matches(wanted, etag: DAVListing.file(current).etag, weak: false) else {
                throw DAVFailure(status: .preconditionFailed, message: "the file is not at the version this client last saw (If-Match); nothing was deleted")
            }
        }
        guard try await vault.davDelete(scope, path: target.path) else {
            throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
        }
        return Response(status: .noContent)
    }

    /// An empty folder, kept for WebDAV clients until a file is put into it (native devices have
    /// no empty folders: they see it once it holds a file).
    func makeCollection(_ request: Request, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        try Self.refuseBody(request)
        guard !target.path.isEmpty else { throw DAVFailure(status: .methodNotAllowed, message: "the vault's root exists already") }
        if let refusal = try VaultPath(target.path).newNameRefusal { throw ServiceError.invalidPath(refusal) }
        let fileThere = try await vault.davFile(scope, path: target.path) != nil
        let folderThere = try await vault.davFolderExists(scope, path: target.path)
        if fileThere || folderThere {
            throw DAVFailure(status: .methodNotAllowed, message: "'\(target.path)' exists already")
        }
        try await requireParent(scope, target)
        try await admit(request, scope, target, [.membership(target.path)])
        try await vault.davMakeCollection(scope, path: target.path)
        return Response(status: .created)
    }

    /// `409` unless the folder `target` would be in exists (RFC 4918 §9.7.1, §9.3.1).
    func requireParent(_ scope: VaultScope, _ target: DAVTarget) async throws {
        let parent = target.path.split(separator: "/").dropLast().joined(separator: "/")
        guard try await vault.davFolderExists(scope, path: parent) else {
            throw DAVFailure(status: .conflict, message: "the folder '\(parent)' does not exist: make it first (MKCOL)")
        }
    }

    /// The answer when the push's rule turned a file down.
    static func failure(_ rejected: WritePlan.Rejected) -> any Error {
        switch rejected.why {
        case .caseTaken(let existing): ServiceError.pathCaseConflict(path: rejected.path, existing: existing)
        case .newName(let error): ServiceError.invalidPath(error)
        case .overQuota(let reason): DAVFailure(status: .init(code: 507, reasonPhrase: "Insufficient Storage"), message: reason)
        default: DAVFailure(status: .conflict, message: rejected.fileError.message)
        }
    }
}
