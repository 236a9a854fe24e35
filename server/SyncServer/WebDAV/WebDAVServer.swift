import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Postgres
import SyncProtocol

/// `/dav/`: every plain vault of the account over WebDAV (RFC 4918), for the sync clients people
/// already have (Remotely Save, rclone, a file manager). A client signs in with HTTP Basic: the
/// account's email and an app password (``AuthService/appPasswordHolder(email:password:address:then:)``),
/// which is a device of the account, so every write is named as that device's in history. Reads
/// come from the vault's state; writes are the vault's own writes (``VaultService`` `dav…`), so
/// they meet every rule a device meets and reach the other devices through the change feed.
/// A middleware rather than routes: WebDAV's methods and paths are its own, and it answers them
/// all, errors included (``DAVErrors``).
struct WebDAVServer: RouterMiddleware {
    typealias Context = ServerRequestContext

    let auth: AuthService
    let vault: VaultService
    let catalog: VaultCatalog
    let trustedProxies: Set<String>
    /// Whether Basic credentials may come over plain HTTP from any machine (`--webdav-allow-http`).
    let plainHTTPAllowed: Bool
    /// Whether TLS is in front (`--public-url https://…`): then the trusted proxies bring
    /// credentials that travelled encrypted.
    let tlsInFront: Bool
    /// Where a `PUT`'s body waits while it is hashed, before it goes to the blob store.
    let spool: URL
    /// The threads file reads and writes run on.
    let io: NIOThreadPool
    let now: @Sendable () -> Date

    /// The methods this server answers on `/dav/`.
    static let methods = ["OPTIONS", "GET", "HEAD", "PUT", "DELETE", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path == "/dav" || path.hasPrefix(DAVTarget.prefix) else { return try await next(request, context) }
        var response: Response
        do {
            response = try await serve(request, context)
        } catch {
            response = DAVErrors.response(error, logger: context.logger)
        }
        response.headers[HTTPField.Name("DAV")!] = "1, 2"
        return response
    }

    private func serve(_ request: Request, _ context: Context) async throws -> Response {
        let method = request.method.rawValue
        let target = try DAVTarget.parse(request.uri.path)
        guard Self.takesCredentials(from: context.peerAddress, plainHTTPAllowed: plainHTTPAllowed, tlsInFront: tlsInFront, trustedProxies: trustedProxies) else {
            throw DAVFailure(
                status: .forbidden,
                message: "WebDAV takes passwords only over TLS: reach this server through https (see docs/webdav.md), or its operator starts it with --webdav-allow-http")
        }
        // One connection signs in, resolves the vault and reads what a PUT decides before its body.
        let (holder, entry) = try await signIn(request, context) { [vault] db, holder -> (scope: VaultScope, sight: VaultService.DAVSight?)? in
            guard method != "OPTIONS", let target, !(method == "MKCOL" && target.path.isEmpty) else { return nil }
            let scope = try vault.scope(
                db, claims: AccessClaims(userID: holder.userID, sessionID: holder.sessionID, expiresAt: vault.now().addingTimeInterval(60)),
                vaultName: target.vault, deviceID: holder.deviceID)
            // An app password made for one vault reaches no other, as if the others were not there.
            if let only = holder.reach.vaultID, only != scope.vaultID { throw ServiceError.notFound("no vault '\(target.vault.prefix(64))' on this account") }
            // A token for one folder is an agent's (/mcp): a WebDAV client syncs whole vaults.
            if let folder = holder.reach.under {
                throw DAVFailure(
                    status: .forbidden, message: "this token reaches only '\(folder)' of its vault, through /mcp: a WebDAV client needs an app password for the whole vault")
            }
            guard method == "PUT", !scope.encrypted, Self.writes(scope, holder) else { return (scope, nil) }
            let condition = try Self.ifCondition(request, scope, target)
            return (scope, try vault.davSight(db, scope, path: target.path, ifPaths: Set((condition?.paths ?? [:]).values.compactMap { $0 })))
        }
        if method == "OPTIONS" { return options() }
        guard let target else { return try await accountRoot(request, holder, method: method) }
        guard let (scope, sight) = entry else {
            if holder.reach.readOnly { throw ServiceError.readOnly("this app password only reads: it makes no vault") }
            if holder.reach.vaultID != nil { throw ServiceError.readOnly("this app password reaches one vault only: it makes no other") }
            return try await makeVault(request, holder, target)
        }
        guard !scope.encrypted else {
            throw DAVFailure(
                status: .forbidden,
                message: "the vault '\(scope.vaultName)' is end-to-end encrypted: the server holds only ciphertext, so it cannot serve it over WebDAV; sync it with vaultsync")
        }
        // A reader of a shared vault reads, and so does a read-only app password: every WebDAV
        // write is refused, also those that make no version (properties, locks, empty folders).
        if !Self.writes(scope, holder), !["PROPFIND", "GET", "HEAD"].contains(method) {
            throw ServiceError.readOnly(holder.reach.readOnly ? "this app password only reads: make one without --read-only to write (vaultsync app-password create)" : nil)
        }
        switch method {
        case "PROPFIND": return try await propfind(request, context, scope, target)
        case "GET": return try await get(request, scope, target, head: false)
        case "HEAD": return try await get(request, scope, target, head: true)
        case "PUT": return try await put(request, context, scope, target, sight: sight)
        case "DELETE": return try await delete(request, scope, target)
        case "MKCOL": return try await makeCollection(request, scope, target)
        case "COPY": return try await copyOrMove(request, scope, target, move: false)
        case "MOVE": return try await copyOrMove(request, scope, target, move: true)
        case "PROPPATCH": return try await proppatch(request, scope, target)
        case "LOCK": return try await lock(request, context, scope, target)
        case "UNLOCK": return try await unlock(request, scope, target)
        default:
            var response = DAVErrors.text(.methodNotAllowed, "\(method.prefix(20)) is not a method this WebDAV server takes")
            response.headers[.allow] = Self.methods.joined(separator: ", ")
            return response
        }
    }

    /// Whether `holder` may write in `scope`: its role there writes and its app password is not read-only.
    static func writes(_ scope: VaultScope, _ holder: AppPasswordQueries.Holder) -> Bool {
        scope.role.writes && !holder.reach.readOnly
    }

    /// Whether Basic credentials may come from `peer` over this plain-HTTP socket: from this
    /// machine (a proxy here, or a client), from a trusted proxy when TLS is in front, or from
    /// anywhere when the operator allowed plain HTTP. A `--public-url https://…` alone does not
    /// let a client that bypasses the proxy send its password in the clear.
    static func takesCredentials(from peer: String?, plainHTTPAllowed: Bool, tlsInFront: Bool, trustedProxies: Set<String>) -> Bool {
        if plainHTTPAllowed || ClientAddress.isLoopback(peer) { return true }
        guard tlsInFront, let peer else { return false }
        return trustedProxies.contains(peer)
    }

    /// The holder of the request's HTTP Basic credentials, and what `then` reads for them on the
    /// same connection.
    private func signIn<Then: Sendable>(
        _ request: Request, _ context: Context, then: @escaping @Sendable (PostgresConnection, AppPasswordQueries.Holder) throws -> Then
    ) async throws -> (AppPasswordQueries.Holder, Then) {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)).flatMap({ String(data: $0, encoding: .utf8) }),
            let colon = decoded.firstIndex(of: ":")
        else { throw ServiceError.unauthorized("WebDAV needs HTTP Basic credentials") }
        return try await auth.appPasswordHolder(
            email: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...]),
            address: context.clientAddress(request, trusting: trustedProxies), then: then)
    }

    private func options() -> Response {
        var response = Response(status: .ok)
        response.headers[.allow] = Self.methods.joined(separator: ", ")
        response.headers[HTTPField.Name("MS-Author-Via")!] = "DAV"
        response.headers[.contentLength] = "0"
        return response
    }

    /// `/dav/` itself: the account's plain vaults, each a collection, and those shared with it
    /// (by id: a name is looked up among the account's own; shown as `OWNER/NAME`).
    private func accountRoot(_ request: Request, _ holder: AppPasswordQueries.Holder, method: String) async throws -> Response {
        guard method == "PROPFIND" else { throw DAVFailure(status: .methodNotAllowed, message: "/dav/ lists your vaults: open one, /dav/VAULT/") }
        guard let depth = try Self.depth(request) else { throw Self.finiteDepthOnly }
        let body = try PropfindBody.parse(try await Self.smallBody(request))
        let vaults = try await catalog.list(userID: holder.userID).vaults.filter { info in info.encrypted != true && (holder.reach.vaultID ?? info.vaultID) == info.vaultID }
        let root = DAVResource(path: "", collection: true, sizeBytes: 0, modified: vaults.map(\.createdAt).max() ?? Date(timeIntervalSince1970: 0), etag: "\"vaults-\(vaults.count)\"", version: nil)
        var entries = [DAVProperties.entry(root, href: DAVTarget.prefix, displayName: "vaults", body: body)]
        if depth > 0 {
            for info in vaults {
                let resource = DAVResource(path: "", collection: true, sizeBytes: 0, modified: info.createdAt, etag: "\"\(info.vaultID.uuidString.lowercased())-\(info.files)-\(info.bytes)\"", version: nil)
                let vault = info.owner == nil ? info.name : info.vaultID.uuidString.lowercased()
                entries.append(DAVProperties.entry(resource, href: DAVTarget.href(vault: vault, path: "", collection: true), displayName: info.qualifiedName, body: body))
            }
        }
        return Self.multistatus(entries)
    }

    /// `MKCOL /dav/NAME/`: a new plain vault of that name, as a client that keeps each of its
    /// vaults in a folder of its own makes it (Remotely Save, when told the server's `/dav/`).
    private func makeVault(_ request: Request, _ holder: AppPasswordQueries.Holder, _ target: DAVTarget) async throws -> Response {
        try Self.refuseBody(request)
        do {
            _ = try await catalog.create(userID: holder.userID, VaultNameRequest(name: target.vault))
        } catch ServiceError.vaultExists {
            throw DAVFailure(status: .methodNotAllowed, message: "the vault '\(target.vault)' exists already")
        }
        return Response(status: .created)
    }

    // MARK: plumbing

    /// `415` for a `MKCOL` with a body (RFC 4918 §9.3: this server takes none).
    static func refuseBody(_ request: Request) throws {
        if request.headers[.contentLength].flatMap(Int.init).map({ $0 > 0 }) ?? (request.headers[.transferEncoding] != nil) {
            throw DAVFailure(status: .unsupportedMediaType, message: "MKCOL takes no body")
        }
    }

    /// A `PROPFIND`'s `Depth`: 0, 1, or infinity (also when it is absent, RFC 4918 §9.1).
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for any other value.
    static func depth(_ request: Request) throws -> Int? {
        switch request.headers[HTTPField.Name("Depth")!]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "0": return 0
        case "1": return 1
        case nil, "infinity": return nil
        case let other?: throw ServiceError.invalidRequest("Depth is 0, 1 or infinity, not '\(other.prefix(20))'")
        }
    }

    /// The answer to a `PROPFIND` of a whole tree at once: a collection's is not served (for a file
    /// it is the file alone, and is answered).
    static let finiteDepthOnly = DAVFailure(
        status: .forbidden, message: "PROPFIND of a folder needs 'Depth: 0' or 'Depth: 1'; a whole tree at once (Depth: infinity, or no Depth) is not served",
        condition: "propfind-finite-depth")

    /// A request body that must be small (XML), at most 1 MiB.
    static func smallBody(_ request: Request) async throws -> Data {
        let body = request.body
        let buffer = try await body.collect(upTo: 1 << 20)
        return Data(buffer.readableBytesView)
    }

    static func multistatus(_ entries: [Multistatus.Entry]) -> Response {
        Response(
            status: .init(code: 207, reasonPhrase: "Multi-Status"), headers: [.contentType: "application/xml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: Multistatus.xml(entries))))
    }
}
