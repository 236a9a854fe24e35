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
    /// replaces whatever is current (which stays in history). One read before the body decides
    /// everything that can be decided then (so a refused `PUT` receives and stores nothing); the
    /// body is hashed as it arrives, stored once, and written as a committing push of those bytes,
    /// whose admission checks the base, the locks and the quota again under the vault's lock.
    /// `sight` is what the door read for it on the connection it signed in on (``VaultService/davSight(_:_:path:ifPaths:)``).
    func put(_ request: Request, _ context: Context, _ scope: VaultScope, _ target: DAVTarget, sight: VaultService.DAVSight?) async throws -> Response {
        guard !target.path.isEmpty, !target.trailingSlash else { throw DAVFailure(status: .methodNotAllowed, message: "a folder takes no PUT: put a file into it") }
        let path = try VaultPath(target.path)
        let condition = try Self.ifCondition(request, scope, target)
        guard let sight else { throw ServiceError.readOnly() }  // the door reads one for every PUT it lets through
        if sight.current == nil, sight.isFolder { throw DAVFailure(status: .methodNotAllowed, message: "'\(target.path)' is a folder") }
        try Self.requireParent(sight, target)
        let write: DAVLockRule.Write = sight.current != nil ? .content(target.path) : .membership(target.path)
        let submitted = try admitted(condition, states: sight.states, locks: { _ in sight.locks }, [write], scope)
        try Self.checkPreconditions(request, current: sight.current.map { DAVListing.file($0).etag })
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > sight.maxFileBytes {
            throw ServiceError.fileTooLarge(path: path, size: declared, limit: sight.maxFileBytes)
        }
        let mtime = try Self.mtime(request)
        let body = try await SpooledBody.spool(request.body, in: spool, path: path, limit: sight.maxFileBytes, io: io)
        defer { body.remove() }
        let conditional = request.headers[.ifMatch] != nil || request.headers[.ifNoneMatch] != nil
        var response = try await self.write(
            body, scope, path, base: conditional ? sight.current.map { .version($0.version) } ?? .absent : nil, sight: sight, mtime: mtime,
            locks: .init(write: write, submitted: submitted, holder: scope.userID),
            changed: DAVFailure(status: .preconditionFailed, message: "'\(path)' changed while this was written; nothing was written: read it again"))
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

    /// `body` as the next version of `path` on `base` (``VaultService/DAVBase``; nil: a client
    /// that sent no `If-Match`, whose write replaces only what it last saw and is merged with an
    /// edit it never saw, ``VaultService/davBlindPut(_:path:body:watermark:mtime:locks:)``),
    /// as `sight` saw the path: its bytes stored first unless the vault has them
    /// (``VaultService/davStore(_:path:body:base:io:)``), then the write, whose admission checks
    /// `base`, `locks` and the quota under the vault's lock. A file no longer at `base` is refused
    /// with `changed`. The answer's `X-VaultSync-Write` says what a blind write came to: `merged`,
    /// `conflict` (its bytes kept as a conflict record) or `unchanged`.
    func write(
        _ body: SpooledBody, _ scope: VaultScope, _ path: VaultPath, base: VaultService.DAVBase?, sight: VaultService.DAVSight, mtime: Date? = nil,
        locks: WriteRequest.LockCondition, changed: DAVFailure
    ) async throws -> Response {
        let stored = try await vault.davStore(scope, path: path, body: body, base: sight.current.map { .version($0.version) } ?? .absent, io: io)
        do {
            let outcome = if let base {
                try await vault.davPut(
                    scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: base, watermark: sight.watermark, mtime: mtime, locks: locks, texts: body.texts(scope))
            } else {
                try await vault.davBlindPut(scope, path: path, body: body, watermark: sight.watermark, mtime: mtime, locks: locks)
            }
            var response: Response
            switch outcome {
            case .written:
                // New or replaced as seen before the body; another writer in between may make it the other.
                response = Response(status: sight.current == nil ? .created : .noContent)
                response.headers[.eTag] = DAVListing.etag(body.hash.rawValue)
                return response
            case .merged: response = Response(status: .noContent, headers: [Self.outcomeHeader: "merged"])
            case .kept: response = Response(status: .noContent, headers: [Self.outcomeHeader: "conflict"])
            case .unchanged: response = Response(status: .noContent, headers: [Self.outcomeHeader: "unchanged"])
            case .changed:
                throw changed
            case .rejected(let rejected):
                throw DAVErrors.failure(rejected)
            }
            // The bytes it sent stay (a version in history, or a conflict record's) unless the
            // current version held them already.
            if outcome == .unchanged, stored { await vault.discardUnnamed(scope, hashes: [body.hash.rawValue]) }
            return response
        } catch {
            // A write refused after its bytes were stored leaves none behind (unless something
            // came to name them meanwhile).
            if stored { await vault.discardUnnamed(scope, hashes: [body.hash.rawValue]) }
            throw error
        }
    }

    static let outcomeHeader = HTTPField.Name("X-VaultSync-Write")!

    /// `If-Match` and `If-None-Match` against the current ETag (nil: no file).
    static func checkPreconditions(_ request: Request, current: String?) throws {
        if let wanted = request.headers[.ifMatch], current.map({ !matches(wanted, etag: $0, weak: false) }) ?? true {
            throw DAVFailure(status: .preconditionFailed, message: "the file is not at the version this client last saw (If-Match); nothing was written: read it again")
        }
        if let unwanted = request.headers[.ifNoneMatch], let current, matches(unwanted, etag: current, weak: true) {
            throw DAVFailure(status: .preconditionFailed, message: "a file is there already (If-None-Match); nothing was written")
        }
    }

    /// A file's tombstone, or a folder's: every live file below it in one change. A file whose
    /// current version is newer than the one this client last saw (another device's edit it
    /// never read) is kept: a file's `DELETE` answers `412` and changes nothing; a folder's deletes
    /// the rest and lists the kept files in a `207`. With `If-Match`, the ETag decides, as in
    /// standard WebDAV.
    func delete(_ request: Request, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        guard !target.path.isEmpty else { throw DAVFailure(status: .forbidden, message: "the vault itself is not deleted over WebDAV: delete it in the web app or with vaultsync") }
        // The If header here; the locks under the vault's lock, by admission.
        let submitted = try await admit(request, scope, target, [])
        if let wanted = request.headers[.ifMatch] {
            let current = try await vault.davFile(scope, path: target.path)
            guard let current, Self.matches(wanted, etag: DAVListing.file(current).etag, weak: false) else {
                throw DAVFailure(status: .preconditionFailed, message: "the file is not at the version this client last saw (If-Match); nothing was deleted")
            }
        }
        let locks = WriteRequest.LockCondition(write: .membership(target.path), submitted: submitted, holder: scope.userID)
        guard let deletion = try await vault.davDelete(scope, path: target.path, confirmed: request.headers[.ifMatch] != nil, locks: locks) else {
            throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
        }
        guard !deletion.kept.isEmpty else { return Response(status: .noContent) }
        if deletion.kept == [try VaultPath(target.path)] {
            throw DAVFailure(status: .preconditionFailed, message: Self.unseenEdit(target.path) + "; nothing was deleted: sync to get that version")
        }
        return Self.multistatus(deletion.kept.map { path in
            Multistatus.Entry(
                href: DAVTarget.href(vault: target.vault, path: path.rawValue, collection: false), status: "HTTP/1.1 412 Precondition Failed",
                description: Self.unseenEdit(path.rawValue) + "; it was kept (the rest was deleted): sync to get that version")
        })
    }

    /// Why a file another device changed since this client last read it is kept.
    static func unseenEdit(_ path: String) -> String {
        "'\(path)' was changed on another device since this client last read it"
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
        // The If header here; the locks under the vault's lock, by admission.
        let submitted = try await admit(request, scope, target, [])
        try await vault.davMakeCollection(scope, path: target.path, locks: .init(write: .membership(target.path), submitted: submitted, holder: scope.userID))
        return Response(status: .created)
    }

    /// `409` unless the folder `target` would be in exists (RFC 4918 §9.7.1, §9.3.1).
    func requireParent(_ scope: VaultScope, _ target: DAVTarget) async throws {
        guard try await vault.davFolderExists(scope, path: Self.parent(of: target)) else { throw Self.missingParent(target) }
    }

    /// `409` unless `sight` saw the folder `target` would be in.
    static func requireParent(_ sight: VaultService.DAVSight, _ target: DAVTarget) throws {
        guard sight.parentExists else { throw missingParent(target) }
    }

    private static func parent(of target: DAVTarget) -> String { target.path.split(separator: "/").dropLast().joined(separator: "/") }

    private static func missingParent(_ target: DAVTarget) -> DAVFailure {
        DAVFailure(status: .conflict, message: "the folder '\(parent(of: target))' does not exist: make it first (MKCOL)")
    }
}
