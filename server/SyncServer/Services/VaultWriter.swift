import Foundation
import Postgres
import SyncProtocol

/// Carries out a ``WritePlan`` in the transaction that read its ``VaultSnapshot``: blobs
/// recorded, reservations made or used up, versions numbered on the vault's change sequence and
/// announced on the change feed, and the device's cursor moved past its own changes. In a plain
/// vault every note it makes current has its text kept for search (``NoteSearchQueries``) by
/// the same transaction, so search never falls behind a write.
struct VaultWriter {
    let tx: PostgresConnection
    let scope: VaultScope
    let now: Date
    /// Texts of the write's notes the door already read, by content hash (``NoteText``).
    var texts: [String: NoteText] = [:]

    /// Writes `plan`; returns the cursor the device may move to (nil: it reads the state instead).
    /// - Parameters:
    ///   - sent: the cursor the device held when it sent the write (``VaultService/sentCursor(_:)``).
    ///   - history: the database history's id, which the new cursor carries.
    @discardableResult
    func carryOut(_ plan: WritePlan, after snapshot: VaultSnapshot, sent: Cursor? = nil, history: String = "") throws -> String? {
        try PushQueries.recordBlobs(tx, vaultID: scope.vaultID, hashes: Array(plan.recordBlobs.keys), sizes: Array(plan.recordBlobs.values), now: now)
        guard plan.refusal == nil else { return nil }
        try keepTexts(of: plan)
        // Asked before writing: only the device's own changes lie between its cursor and the lock.
        let sentIsCurrent = try sent.map {
            try FileStateQueries.onlyOwnChanges(tx, vaultID: scope.vaultID, after: $0.sequence, through: snapshot.sequence, deviceID: scope.deviceID)
        } ?? false
        try PushQueries.reserve(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, reservations: plan.reservations.map(Self.row), now: now)
        var sequence = snapshot.sequence
        let writes = plan.writes.map { write in
            sequence += 1
            return FileStateQueries.Write(
                path: write.path.rawValue, pathKey: write.pathKey, version: write.version, contentHash: write.contentHash, sizeBytes: write.sizeBytes, sequence: sequence)
        }
        if let device = plan.importedBy {
            try FileStateQueries.writeImported(tx, vaultID: scope.vaultID, writes: zip(plan.writes, writes).map(Self.imported), deviceID: device, now: now)
        } else {
            // Tombstones first: a name a move frees (in letter case only) is free before it is taken.
            try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes.filter { $0.contentHash == nil }, deleted: true, deviceID: scope.deviceID, now: now, origin: plan.origin)
            try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes.filter { $0.contentHash != nil }, deleted: false, deviceID: scope.deviceID, now: now, origin: plan.origin)
        }
        // An import may write several versions of a path: the feed names each path once.
        var announced = Set<String>()
        let once = writes.reversed().filter { announced.insert($0.path).inserted }.reversed()
        try FileStateQueries.finish(tx, vaultID: scope.vaultID, writes: Array(once), sequence: sequence, deviceID: plan.importedBy ?? scope.deviceID)
        if let names = plan.namesGeneration { try FileStateQueries.setNamesGeneration(tx, vaultID: scope.vaultID, generation: names, since: sequence) }
        if plan.consumesReservations {
            try PushQueries.consume(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: writes.map(\.path), versions: writes.map(\.version))
        }
        guard sentIsCurrent, let sent else { return nil }
        return Cursor(sequence: sequence, purgeMark: sent.purgeMark, history: history).encoded
    }

    /// Keeps the texts of the notes `plan` makes current that are not kept yet.
    /// - Throws: ``NoteTextsNeeded`` naming those no door read, before anything else is written:
    ///   the gate reads them from the store and writes again
    ///   (``VaultService/keepingNoteTexts(_:_:_:)``).
    private func keepTexts(of plan: WritePlan) throws {
        // An encrypted vault's paths and bytes are ciphertext (only an empty vault becomes one).
        guard !scope.encrypted else { return }
        var current: [String: String?] = [:]
        for write in plan.writes { current[write.path.rawValue] = write.contentHash }
        let notes = Set(current.compactMap { path, hash in WebApp.isNote(path) ? hash : nil }).sorted()
        let held = notes.compactMap { hash in texts[hash].map { (hash: hash, text: $0) } }
        let unread = try NoteSearchQueries.keep(tx, vaultID: scope.vaultID, notes: notes, texts: held)
        if !unread.isEmpty { throw NoteTextsNeeded(hashes: unread) }
    }

    private static func imported(_ planned: WritePlan.VersionWrite, _ write: FileStateQueries.Write) -> FileStateQueries.ImportedWrite {
        FileStateQueries.ImportedWrite(write: write, createdAt: planned.createdAt ?? .distantPast, origin: planned.origin)
    }

    private static func row(_ reservation: WritePlan.Reservation) -> HeldReservation {
        HeldReservation(
            path: reservation.file.path.rawValue, pathKey: reservation.pathKey, newVersion: reservation.version, baseVersion: reservation.baseVersion,
            contentHash: reservation.file.contentHash.rawValue, sizeBytes: reservation.file.sizeBytes, expiresAt: reservation.expiresAt)
    }
}

/// A write makes notes current whose texts neither the search keeps nor the door read.
struct NoteTextsNeeded: Error {
    let hashes: [String]
}
