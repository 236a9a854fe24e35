import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SyncProtocol

/// `LOCK`, `UNLOCK` and `PROPPATCH` (RFC 4918 §9.10, §9.11, §9.2), and what every WebDAV write
/// meets first: the `If` header and the locks in its way (``admit(_:_:_:_:)``).
extension WebDAVServer {
    static let ifHeader = HTTPField.Name("If")!
    static let lockTokenHeader = HTTPField.Name("Lock-Token")!
    static let timeoutHeader = HTTPField.Name("Timeout")!

    /// The request's `If` header, and the vault path each of its resources names (nil: one
    /// outside this vault, which holds no state here); nil without one.
    static func ifCondition(_ request: Request, _ scope: VaultScope, _ target: DAVTarget) throws -> (header: DAVIfHeader, paths: [String: String?])? {
        let fields = request.headers[values: Self.ifHeader]
        guard !fields.isEmpty else { return nil }
        let header = try DAVIfHeader.parse(fields: fields)
        var paths: [String: String?] = [:]
        for resource in Set(header.lists.map { $0.resource ?? "" }) { paths[resource] = resource.isEmpty ? target.path : tagged(resource, scope, target) }
        return (header, paths)
    }

    /// Refuses a write whose `If` header does not hold against `states` (`412`) or that one of
    /// `locks` covers whose token it does not submit (`423`); returns the tokens it submitted.
    func admitted(
        _ condition: (header: DAVIfHeader, paths: [String: String?])?, states: [String: DAVIfHeader.State], locks: (DAVLockRule.Write) -> [DAVLock],
        _ writes: [DAVLockRule.Write], _ scope: VaultScope
    ) throws -> Set<String> {
        var submitted: Set<String> = []
        if let condition {
            let none = DAVIfHeader.State(etag: nil, tokens: [])
            guard condition.header.holds({ resource in (condition.paths[resource ?? ""] ?? nil).flatMap { states[$0] } ?? none }) else {
                throw DAVFailure(status: .preconditionFailed, message: "the If header's conditions do not hold (a lock token or ETag that is not current); nothing was changed")
            }
            submitted = condition.header.tokens
        }
        for write in writes {
            if let lock = DAVLockRule.blocking(write, locks(write), submitted: submitted, by: scope.userID).first {
                throw WriteRefusal.locked(path: lock.path.isEmpty ? scope.vaultName : lock.path).serviceError
            }
        }
        return submitted
    }

    /// Refuses a write whose `If` header does not hold (`412`) or that a lock covers whose token
    /// it does not submit (`423`), reading what they name; returns the tokens it submitted.
    @discardableResult
    func admit(_ request: Request, _ scope: VaultScope, _ target: DAVTarget, _ writes: [DAVLockRule.Write]) async throws -> Set<String> {
        let condition = try Self.ifCondition(request, scope, target)
        var states: [String: DAVIfHeader.State] = [:]
        for case let path? in (condition?.paths ?? [:]).values { states[path] = try await state(path, scope) }
        var locks: [String: [DAVLock]] = [:]
        for write in writes {
            let path = switch write { case .content(let path), .membership(let path): path }
            locks[path] = try await vault.davLocks(scope, around: path)
        }
        return try admitted(condition, states: states, locks: { write in
            switch write { case .content(let path), .membership(let path): locks[path] ?? [] }
        }, writes, scope)
    }

    /// The path a tagged `If` list names, nil when it is not in this vault.
    private static func tagged(_ resource: String, _ scope: VaultScope, _ target: DAVTarget) -> String? {
        guard let named = try? DAVTarget.destination(resource), [target.vault, scope.vaultName, scope.vaultID.uuidString.lowercased()].contains(named.vault) else { return nil }
        return named.path
    }

    /// What an `If` condition sees at `path`: its ETag and the tokens of the locks covering it.
    private func state(_ path: String?, _ scope: VaultScope) async throws -> DAVIfHeader.State {
        guard let path else { return DAVIfHeader.State(etag: nil, tokens: []) }
        let etag = try await vault.davResources(scope, path: path, depth: 0)?.first?.etag
        let tokens = DAVLockRule.covering(path, try await vault.davLocks(scope, around: path)).map(\.token)
        return DAVIfHeader.State(etag: etag, tokens: Set(tokens))
    }

    /// A new lock (`201` and an empty file when nothing was there, as RFC 4918 §7.3 has it), or
    /// with no body the refresh of the lock the `If` header names.
    func lock(_ request: Request, _ context: Context, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        let body = try await Self.smallBody(request)
        let timeout = DAVLockRule.timeout(request.headers[Self.timeoutHeader])
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            let tokens = try DAVIfHeader.parse(fields: request.headers[values: Self.ifHeader]).tokens
            for token in tokens.sorted() {
                if let lock = try await vault.davRefresh(scope, token: token, path: target.path, timeoutSeconds: timeout) {
                    return lockAnswer(.ok, lock, scope, target, token: false)
                }
            }
            throw DAVFailure(status: .preconditionFailed, message: "a LOCK without a body refreshes a lock: name one that covers '\(target.path)' in the If header")
        }
        let info = try LockInfo.parse(body)
        let deep: Bool
        switch request.headers[HTTPField.Name("Depth")!]?.lowercased() {
        case "0": deep = false
        case nil, "infinity": deep = true
        default: throw DAVFailure(status: .badRequest, message: "a LOCK's Depth is 0 or infinity")
        }
        let exists = try await vault.davResources(scope, path: target.path, depth: 0) != nil
        if !exists {
            guard !target.trailingSlash else { throw DAVFailure(status: .conflict, message: "'\(target.path)' does not exist: make the folder first (MKCOL)") }
            try await requireParent(scope, target)
        }
        try await admit(request, scope, target, exists ? [] : [.membership(target.path)])
        guard let lock = try await vault.davLock(scope, path: target.path, deep: deep, exclusive: info.exclusive, owner: info.owner, timeoutSeconds: timeout) else {
            throw DAVFailure(status: .init(code: 423, reasonPhrase: "Locked"), message: "'\(target.path)' is locked already by another lock it cannot share")
        }
        guard !exists else { return lockAnswer(.ok, lock, scope, target, token: true) }
        do {
            let path = try VaultPath(target.path)
            let empty = try await SpooledBody.spool(AsyncStream<ByteBuffer> { $0.finish() }, in: spool, path: path, limit: 0, io: io)
            defer { empty.remove() }
            let sight = try await vault.davSight(scope, path: target.path, ifPaths: [])
            _ = try await write(
                empty, scope, path, base: .absent, sight: sight, locks: .init(write: .membership(target.path), submitted: [lock.token], holder: scope.userID),
                changed: DAVFailure(status: .conflict, message: "'\(target.path)' was made meanwhile: lock it again"))
        } catch {
            _ = try? await vault.davUnlock(scope, token: lock.token, path: target.path)
            throw error
        }
        return lockAnswer(.created, lock, scope, target, token: true)
    }

    private func lockAnswer(_ status: HTTPResponse.Status, _ lock: DAVLock, _ scope: VaultScope, _ target: DAVTarget, token: Bool) -> Response {
        let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:prop xmlns:D=\"DAV:\"><D:lockdiscovery>"
            + DAVLockXML.discovery([lock], vault: target.vault, now: now()) + "</D:lockdiscovery></D:prop>\n"
        var response = Response(status: status, headers: [.contentType: "application/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: xml)))
        if token { response.headers[Self.lockTokenHeader] = "<\(lock.token)>" }
        return response
    }

    /// Ends the lock the `Lock-Token` header names, which must cover the request's path.
    func unlock(_ request: Request, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        guard let header = request.headers[Self.lockTokenHeader]?.trimmingCharacters(in: .whitespaces), header.hasPrefix("<"), header.hasSuffix(">"), header.count > 2 else {
            throw DAVFailure(status: .badRequest, message: "UNLOCK needs a Lock-Token header: <the lock's token>")
        }
        guard try await vault.davUnlock(scope, token: String(header.dropFirst().dropLast()), path: target.path) else {
            throw DAVFailure(status: .conflict, message: "no lock with that token covers '\(target.path)' (it may have expired)")
        }
        return Response(status: .noContent)
    }

    /// Sets and removes dead properties, all or none (`207` with each property's status).
    func proppatch(_ request: Request, _ scope: VaultScope, _ target: DAVTarget) async throws -> Response {
        let updates = try PropertyUpdate.parse(try await Self.smallBody(request))
        guard try await vault.davResources(scope, path: target.path, depth: 0) != nil else {
            throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
        }
        // The If header here; the locks under the vault's lock, by admission.
        let submitted = try await admit(request, scope, target, [])
        var entry = Multistatus.Entry(href: DAVTarget.href(vault: target.vault, path: target.path, collection: target.trailingSlash))
        let locks = WriteRequest.LockCondition(write: .content(target.path), submitted: submitted, holder: scope.userID)
        switch try await vault.davPatch(scope, path: target.path, updates, locks: locks) {
        case .apply(let changes):
            entry.propstats = [("200 OK", updates.map(\.property).filter { changes[$0] != nil }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })]
        case .refuse(let answers, let reason):
            let lines = [403: "403 Forbidden", 507: "507 Insufficient Storage", 424: "424 Failed Dependency"]
            entry.propstats = [403, 507, 424].map { code in
                (lines[code] ?? "", answers.filter { $0.status == code }.map(\.property))
            }.filter { !$0.1.isEmpty }
            entry.description = reason
        }
        return Self.multistatus([entry])
    }
}
