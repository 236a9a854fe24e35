import Foundation
import HTTPTypes
import Hummingbird
import SyncProtocol

/// `COPY` and `MOVE` (RFC 4918 §9.8, §9.9) within a vault, each one change
/// (``VaultService/davRelocate(_:from:to:_:move:)``): each file at the destination is a new
/// version that names the bytes the source's names (nothing is uploaded or stored again), and a
/// move tombstones the source in the same change. `Overwrite: F` refuses an existing destination
/// (`412`); with `T` (the default) what an existing folder there holds is deleted in that same
/// change and an existing file gets the next version, its old one staying in history.
extension WebDAVServer {
    func copyOrMove(_ request: Request, _ scope: VaultScope, _ target: DAVTarget, move: Bool) async throws -> Response {
        let header = request.headers[HTTPField.Name("Destination")!]
        let authorities = [request.head.authority, request.headers[HTTPField.Name("X-Forwarded-Host")!]].compactMap { $0 }
        if let header, !DAVTarget.isOnThisServer(header, authorities: authorities) {
            throw DAVFailure(status: .badGateway, message: "the Destination is on another server: this server copies and moves only within itself")
        }
        guard let header, let destination = try DAVTarget.destination(header) else {
            throw DAVFailure(status: .badRequest, message: "\(move ? "MOVE" : "COPY") needs a Destination header naming a place under /dav/")
        }
        guard destination.vault == target.vault || destination.vault == scope.vaultID.uuidString.lowercased() || destination.vault == scope.vaultName else {
            throw DAVFailure(status: .badGateway, message: "copies and moves stay in one vault: copy between vaults with your client")
        }
        guard !target.path.isEmpty, !destination.path.isEmpty else { throw DAVFailure(status: .forbidden, message: "the vault's root is neither copied nor moved") }
        guard destination.path != target.path, !destination.path.hasPrefix(target.path + "/") else {
            throw DAVFailure(status: .forbidden, message: "the destination is the source, or inside it")
        }
        let overwrite = request.headers[HTTPField.Name("Overwrite")!]?.uppercased() != "F"
        let depthHeader = request.headers[HTTPField.Name("Depth")!]?.lowercased()
        guard let source = try await vault.davTree(scope, path: target.path) else {
            throw DAVFailure(status: .notFound, message: "nothing is at '\(target.path)' in '\(scope.vaultName)'")
        }
        guard try await vault.davFolderExists(scope, path: destination.path.split(separator: "/").dropLast().joined(separator: "/")) else {
            throw DAVFailure(status: .conflict, message: "the destination's folder does not exist: make it first (MKCOL)")
        }
        // The If header here; the locks under the vault's lock, by admission.
        let submitted = try await admit(request, scope, target, [])
        let locks = WriteRequest.LockCondition(
            writes: (move ? [.membership(target.path)] : []) + [.membership(destination.path)], submitted: submitted, holder: scope.userID)
        // A move takes the source away: an edit this client never read stays where it is.
        if move, request.headers[.ifMatch] == nil {
            let seen = try await vault.davSeen(scope, paths: source.files.map(\.path))
            if let unseen = source.files.first(where: { file in seen[file.path].map { $0 < file.version } ?? false }) {
                throw DAVFailure(status: .preconditionFailed, message: Self.unseenEdit(unseen.path) + "; nothing was moved: sync to get that version")
            }
        }
        let existing = try await vault.davTree(scope, path: destination.path)
        if existing != nil, !overwrite { throw DAVFailure(status: .preconditionFailed, message: "'\(destination.path)' exists and Overwrite is F; nothing was changed") }
        // A folder copy at Depth 0 is the folder alone; a move is always the whole tree.
        let shallow = !move && source.isFolder && depthHeader == "0"
        let there = Dictionary((existing?.files ?? []).map { ($0.path, $0) }) { first, _ in first }
        let files = try (shallow ? [] : source.files).map { file in
            let path = try VaultPath(destination.path + String(file.path.dropFirst(target.path.count)))
            return VaultService.DAVRelocation(source: file, destination: path, base: there[path.rawValue].map { .version($0.version) } ?? .absent)
        }
        // What the destination holds that nothing takes the place of goes in the same change.
        let taken = Set(files.map(\.destination.rawValue))
        let replaced = (existing?.files ?? []).filter { !taken.contains($0.path) }
        switch try await vault.davRelocate(
            scope, from: target.path, to: destination.path, files, replacing: replaced, clearing: existing?.isFolder == true || source.isFolder, move: move, locks: locks)
        {
        case .written, .merged, .kept, .unchanged: break  // a relocation only writes or not
        case .rejected(let rejected): throw DAVErrors.failure(rejected)
        case .changed: throw DAVFailure(status: .conflict, message: "'\(target.path)' or its destination changed meanwhile; nothing was \(move ? "moved" : "copied"): try again")
        }
        if source.isFolder {
            let folders = [destination.path] + (shallow ? [] : source.collections.map { destination.path + String($0.dropFirst(target.path.count)) })
            // Kept as collections, so that the folders stay when their files are deleted, as a
            // WebDAV client expects of folders it copied.
            for folder in folders { try await vault.davMakeCollection(scope, path: folder) }
        }
        return Response(status: existing == nil ? .created : .noContent)
    }
}
