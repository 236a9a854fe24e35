public import Foundation
public import Logging
import CFileStat
import Synchronization
import SyncCore
public import SyncProtocol

/// What the watcher records for `vaultsync status` and reports as it goes.
extension VaultWatcher {
    /// Runs `renewal` (a refresh, or a call that refreshes); when the server refuses the session
    /// (the device was revoked or signed out elsewhere) the watcher stops, since nothing it could
    /// do would sync again. Other failures are the reconnect loop's to retry.
    func renewingSession(_ renewal: () async throws -> Void) async {
        do {
            try await renewal()
        } catch let error as SyncAPIError where error.isSessionRefused {
            stop(WatchError.sessionRefused(engine.root.path, reason: error.serverMessage))
        } catch {}
    }

    /// Records and reports the feed's state; a reconnect that fails as the one before does is not
    /// reported again (one line per change, not one per retry).
    func setConnected(_ connected: Bool, detail: String?) {
        let changed = feedState.withLock { state in
            defer { state = (connected, detail) }
            return state.connected != connected || (!connected && state.detail != detail)
        }
        guard changed else { return }
        updateRecord { $0.connected = connected }
        onEvent(.connection(connected: connected, detail: detail))
    }

    func updateRecord(_ change: (inout WatcherRecord) -> Void) {
        let pending = schedule.withLock { $0.pendingChanges }
        let snapshot = record.withLock { record in
            change(&record)
            record.pendingChanges = pending
            return record
        }
        do {
            try snapshot.save(stateFolder: engine.stateFolder)
        } catch {
            logger.warning("cannot write the watcher's status file", metadata: ["error": "\(error)"])
        }
    }
}
