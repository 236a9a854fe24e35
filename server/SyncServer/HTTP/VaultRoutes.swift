import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SyncProtocol

/// `GET /vault/state`, `/vault/history`, `/vault/search`, `POST /vault/push`, `/vault/push/confirm`, `/vault/pull`,
/// `/vault/delete`, `/vault/restore`, `/vault/restore-as-of`, `/vault/restore-deleted`, `/vault/import`, `/vault/repair…`, `/vault/conflicts…`, `/vault/uploads…`, `/vault/key`, `/vault/key/revisions`, `/vault/rekey` (authenticated;
/// each names its device in `X-VaultSync-Device` and optionally a vault in `X-VaultSync-Vault`).
struct VaultRoutes {
    let vault: VaultService
    let exports: ExportService

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.get("state") { request, context in
            let scope = try await scope(request, context)
            let query = request.uri.queryParameters
            let state = try await vault.state(
                scope, cursor: query["cursor"].map(String.init), since: query["since"].map(String.init), limit: query["limit"].map(String.init),
                skip: query.getAll("skip").map { String($0) })
            return try context.json(state)
        }
        group.post("push") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.push(scope, try await request.decodeFramedOrJSON(as: PushRequest.self, context: context)))
        }
        group.post("push/confirm") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.confirm(scope, try await request.decode(as: ConfirmRequest.self, context: context)))
        }
        group.post("pull") { request, context in
            let scope = try await scope(request, context)
            return try context.framedOrJSON(try await vault.pull(scope, try await request.decode(as: PullRequest.self, context: context)), for: request)
        }
        group.post("export") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await exports.start(scope), status: .accepted)
        }
        // The seed's form: the current export (running or fresh), else a new one; 200 once ready.
        group.get("export") { request, context in
            let scope = try await scope(request, context)
            let status = try await exports.start(scope)
            return try context.json(status, status: status.state == .running ? .accepted : .ok)
        }
        group.get("export/:id") { request, context in
            let scope = try await scope(request, context)
            guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else { throw ServiceError.notFound("no such export") }
            return try context.json(try await exports.status(scope, id: id))
        }
        group.get("usage") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.usage(scope))
        }
        group.get("history") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.history(scope, path: request.uri.queryParameters["path"].map(String.init)))
        }
        group.get("search") { request, context in
            let scope = try await scope(request, context)
            let query = request.uri.queryParameters
            return try context.json(
                try await vault.search(scope, query: query["q"].map(String.init), under: query["under"].map(String.init), limit: query["limit"].map(String.init)))
        }
        group.post("restore") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.restore(scope, try await request.decode(as: RestoreRequest.self, context: context)))
        }
        group.post("restore-as-of") { request, context in
            let scope = try await vault.scope(request, context)
            return try context.json(try await vault.restoreAsOf(scope, try await request.decode(as: RestoreAsOfRequest.self, context: context)))
        }
        group.post("import") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.importVersions(scope, try await request.decode(as: ImportRequest.self, context: context)))
        }
        group.post("restore-deleted") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.restoreDeleted(scope, try await request.decode(as: RestoreDeletedRequest.self, context: context)))
        }
        group.get("repair") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.repairList(scope, after: request.uri.queryParameters["after"].map(String.init)))
        }
        group.post("repair/confirm") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.confirmRepair(scope, try await request.decode(as: RepairConfirmRequest.self, context: context)))
        }
        group.post("conflicts") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.recordConflict(scope, try await request.decode(as: RecordConflictRequest.self, context: context)), status: .created)
        }
        group.get("conflicts") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.conflicts(scope, ids: request.uri.queryParameters["ids"].map(String.init)))
        }
        group.post("conflicts/resolve") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.resolveConflict(scope, try await request.decode(as: ResolveConflictRequest.self, context: context)))
        }
        group.post("conflicts/:id/confirm") { request, context in
            let scope = try await scope(request, context)
            guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else { throw ServiceError.notFound("no such conflict record") }
            return try context.json(try await vault.confirmConflict(scope, id: id))
        }
        group.post("uploads") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.startUpload(scope, try await request.decode(as: StartUploadRequest.self, context: context)))
        }
        group.post("uploads/:id/parts") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.uploadParts(scope, id: try uploadID(context), try await request.decode(as: UploadPartsRequest.self, context: context)))
        }
        group.post("uploads/:id/complete") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.completeUpload(scope, id: try uploadID(context)))
        }
        group.delete("uploads/:id") { request, context in
            let scope = try await scope(request, context)
            try await vault.abortUpload(scope, id: try uploadID(context))
            return Response(status: .noContent)
        }
        group.get("key") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.key(scope))
        }
        group.get("key/revisions") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.keyRevisions(scope))
        }
        group.put("key") { request, context in
            let scope = try await scope(request, context)
            let stored = try await vault.putKey(scope, try await request.decode(as: PutKeyRequest.self, context: context))
            return try context.json(stored.envelope, status: stored.created ? .created : .ok)
        }
        group.post("rekey") { request, context in
            let scope = try await scope(request, context)
            // It names every file of the vault: read with its own, larger limit.
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: VaultService.maxRekeyBodyBytes)
            } catch let error where error is NIOTooManyBytesError || (error as? HTTPError)?.status == .contentTooLarge {
                throw ServiceError.payloadTooLarge(limit: VaultService.maxRekeyBodyBytes)
            }
            return try context.json(try await vault.rekey(scope, try context.requestDecoder.decode(RekeyRequest.self, from: Data(body.readableBytesView))))
        }
        group.post("delete") { request, context in
            let scope = try await scope(request, context)
            return try context.json(try await vault.delete(scope, try await request.decode(as: DeleteRequest.self, context: context)))
        }
    }

    private func uploadID(_ context: ServerRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else { throw ServiceError.notFound("no such upload session") }
        return id
    }

    private func scope(_ request: Request, _ context: ServerRequestContext) async throws -> VaultScope {
        try await vault.scope(request, context)
    }
}

extension VaultService {
    /// The scope an authenticated vault request names in its headers.
    func scope(_ request: Request, _ context: ServerRequestContext) async throws -> VaultScope {
        guard let claims = context.claims else { throw ServiceError.unauthorized("authentication required") }
        var names: Int?
        if let said = request.headers[HTTPField.Name(SyncHeader.namesGeneration)!] {
            guard let generation = Int(said), generation >= 1 else { throw ServiceError.invalidRequest("\(SyncHeader.namesGeneration) must be a key generation (1 or more), not '\(said.prefix(16))'") }
            names = generation
        }
        var scope = try await scope(
            claims: claims, vaultName: request.headers[HTTPField.Name(SyncHeader.vault)!], deviceHeader: request.headers[HTTPField.Name(SyncHeader.device)!])
        scope.namesGeneration = names
        return scope
    }
}
