import Foundation
import SyncProtocol
import SyncServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `vaultsync watch` as a user runs it: child processes keeping folders in sync against a real
/// server, read through `--json` (one event per line) and `status`.
@Suite struct WatchTests: CLISuite {

    /// New folders linked to one new account on `server`, one device each.
    func linkedFolders(_ names: [String], to server: URL) async throws -> [URL] {
        let email = "watch-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        #expect(try await vaultsync(["signup", "--server", server.absoluteString, "--email", email]).exitCode == 0)
        return try await names.asyncMap { name in
            let folder = URL(fileURLWithPath: "/tmp/vaultsync-watch-\(name)-\(UUID().uuidString.prefix(8))")
            let linked = try await vaultsync(["init", folder.path, "--server", server.absoluteString, "--email", email, "--device-name", name])
            #expect(linked.exitCode == 0, "\(linked)")
            return folder
        }
    }

    /// A server, two linked folders of one account and a connected watcher on each; the folders are
    /// removed and the watchers killed afterwards.
    func withTwoWatchers(_ extra: [String] = [], _ body: (URL, URL, CLIProcess, CLIProcess) async throws -> Void) async throws {
        try await TestServer.with { server in
            let folders = try await linkedFolders(["laptop", "phone"], to: server.baseURL)
            defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
            let watchers = try folders.map { try watch($0, extra) }
            defer { watchers.forEach { $0.send(SIGKILL) } }
            // The start is where a suite of 2 cores is busiest (every test starting servers and
            // processes at once): it gets more time, and a failure says what the watcher printed
            // (the start of its errors too: a crash's message comes before the backtrace).
            for process in watchers {
                try await eventually("connected", within: .seconds(150), explaining: {
                    let errors = process.stderrSoFar
                    return "\(process.stdoutSoFar.suffix(3000))\n\(errors.prefix(3000))\(errors.count > 5000 ? "\n…\n" + errors.suffix(2000) : "")"
                }) {
                    WatchLog(process).connected
                }
            }
            try await body(folders[0], folders[1], watchers[0], watchers[1])
        }
    }

    /// Starts a watcher with a short debounce (tests should not wait a second per edit).
    func watch(_ folder: URL, _ extra: [String] = []) throws -> CLIProcess {
        try CLIProcess.start("vaultsync", ["watch", folder.path, "--json", "--debounce", "0.2"] + extra, environment: environment)
    }

    /// Reads a file, nil when absent.
    func content(_ folder: URL, _ path: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    func write(_ folder: URL, _ path: String, _ text: String) throws {
        let url = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test func twoWatchersKeepTheirFoldersInSyncWithoutAManualSync() async throws {
        try await withTwoWatchers { laptop, phone, laptopWatch, phoneWatch in

            try write(laptop, "notes/a.md", "one")
            try await eventually("a.md reaches the phone") { content(phone, "notes/a.md") == "one" }
            try write(laptop, "notes/a.md", "two")
            try await eventually("the edit reaches the phone") { content(phone, "notes/a.md") == "two" }
            try write(phone, "b.md", "from the phone")
            try await eventually("b.md reaches the laptop") { content(laptop, "b.md") == "from the phone" }
            // The files the phone's watcher wrote itself (a.md, twice) started no sync of their own:
            // every sync it ran for a local change moved something.
            let phoneSyncs = WatchLog(phoneWatch).syncs
            #expect(!phoneSyncs.contains { $0.reason == "local" && $0.moved.isEmpty }, "\(phoneSyncs.map { ($0.reason, $0.moved) })")
            #expect(phoneSyncs.contains { $0.moved.contains("b.md") })
            try FileManager.default.moveItem(at: laptop.appendingPathComponent("notes/a.md"), to: laptop.appendingPathComponent("notes/c.md"))
            try await eventually("the rename reaches the phone") { content(phone, "notes/c.md") == "two" && content(phone, "notes/a.md") == nil }
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("notes/c.md"))
            try await eventually("the delete reaches the phone") { content(phone, "notes/c.md") == nil }

            let laptopLog = WatchLog(laptopWatch)
            #expect(!laptopLog.pulled.contains("notes/a.md") && !laptopLog.pulled.contains("notes/c.md"), "the laptop never got its own changes back")
            #expect(laptopLog.pulled.contains("b.md"))

            // status shows the watcher; SIGINT ends it with exit 0 and frees the vault.
            let status = try await vaultsync(["status", laptop.path, "--json"]).json()
            let watcher = try #require(status["watcher"] as? [String: Any], "\(status)")
            #expect(watcher["pid"] as? Int == Int(laptopWatch.pid) && watcher["connected"] as? Bool == true && watcher["last_sync_at"] is String)
            let text = try await vaultsync(["status", laptop.path])
            #expect(text.stdout.contains("watcher: running (pid \(laptopWatch.pid)"), "\(text)")
            laptopWatch.send(SIGINT)
            let ended = try await laptopWatch.finish(timeout: .seconds(30))
            #expect(ended.exitCode == 0, "\(ended)")
            #expect(WatchLog(ended.stdout).events.last?["event"] as? String == "stopped")
            #expect(try await vaultsync(["status", laptop.path, "--json"]).json()["watcher"] == nil)
            let manual = try await vaultsync(["sync", laptop.path])
            #expect(manual.exitCode == 0, "\(manual)")
        }
    }

    /// After the first sync a watcher looks only at the paths inotify and the change feed named
    /// (issue 35): folders moved in, around and out of the vault still arrive whole on the other
    /// device, through syncs that did not read the whole folder.
    @Test func aWatcherLooksOnlyAtWhatChangedAndMissesNothing() async throws {
        try await withTwoWatchers { laptop, phone, laptopWatch, phoneWatch in
            try write(laptop, "projects/alpha/plan.md", "plan")
            try write(laptop, "projects/alpha/deep/notes.md", "notes")
            try await eventually("the new folder reaches the phone") { content(phone, "projects/alpha/deep/notes.md") == "notes" }

            // Moved within the vault, then edited under its new name.
            try FileManager.default.moveItem(at: laptop.appendingPathComponent("projects/alpha"), to: laptop.appendingPathComponent("archive"))
            try await eventually("the move reaches the phone") {
                content(phone, "archive/deep/notes.md") == "notes" && content(phone, "projects/alpha/plan.md") == nil
            }
            try write(laptop, "archive/deep/notes.md", "edited after the move")
            try await eventually("the edit reaches the phone") { content(phone, "archive/deep/notes.md") == "edited after the move" }

            // A folder moved in from outside the vault, and one moved out of it.
            let outside = URL(fileURLWithPath: "/tmp/vaultsync-outside-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: outside) }
            try write(outside, "inbox/one.md", "one")
            try write(outside, "inbox/sub/two.md", "two")
            try FileManager.default.moveItem(at: outside.appendingPathComponent("inbox"), to: phone.appendingPathComponent("inbox"))
            try FileManager.default.moveItem(at: phone.appendingPathComponent("archive"), to: outside.appendingPathComponent("archive"))
            try await eventually("both moves reach the laptop") {
                content(laptop, "inbox/sub/two.md") == "two" && content(laptop, "inbox/one.md") == "one" && content(laptop, "archive/plan.md") == nil
                    && content(laptop, "archive/deep/notes.md") == nil
            }

            for (name, log) in [("laptop", WatchLog(laptopWatch)), ("phone", WatchLog(phoneWatch))] {
                let scanned = log.reports.map { $0["scanned"] as? String ?? "?" }
                #expect(scanned.first == "whole_folder", "\(name): the first sync reads the whole folder: \(scanned)")
                #expect(scanned.count > 2 && scanned.dropFirst().allSatisfy { $0 == "changed_paths" }, "\(name): later ones only what changed: \(scanned)")
            }
            // A whole scan (as the safety net makes) finds nothing left to do.
            let manual = try await vaultsync(["sync", laptop.path, "--json"]).json()
            #expect(manual["scanned"] as? String == "whole_folder" && (manual["pushed"] as? [String])?.isEmpty == true
                && (manual["deleted_remotely"] as? [String])?.isEmpty == true, "\(manual)")
        }
    }

    /// With `--long-poll` (a proxy that passes no WebSockets) the server's changes still arrive
    /// without a manual sync, and no sooner-than-needed: the safety net is far off.
    @Test func longPollingWatchersKeepTheirFoldersInSync() async throws {
        try await withTwoWatchers(["--long-poll", "--safety-interval", "3600"]) { laptop, phone, laptopWatch, _ in
            try write(laptop, "notes/a.md", "one")
            try await eventually("a.md reaches the phone") { content(phone, "notes/a.md") == "one" }
            try write(phone, "b.md", "from the phone")
            try await eventually("b.md reaches the laptop") { content(laptop, "b.md") == "from the phone" }
            try write(laptop, "notes/a.md", "two")
            try await eventually("the edit reaches the phone") { content(phone, "notes/a.md") == "two" }
            #expect(!WatchLog(laptopWatch).pulled.contains("notes/a.md"), "the laptop never got its own change back")
        }
    }

    /// A second watcher on the same vault is refused with the first one's pid; a manual sync
    /// beside a watcher works (they take turns on the vault lock).
    @Test func oneWatcherPerVaultAndManualSyncsBesideIt() async throws {
        try await TestServer.with { server in
            let folders = try await linkedFolders(["laptop"], to: server.baseURL)
            defer { try? FileManager.default.removeItem(at: folders[0]) }
            let first = try watch(folders[0])
            defer { first.send(SIGKILL) }
            try await eventually("connected") { WatchLog(first).connected }
            let second = try await vaultsync(["watch", folders[0].path])
            #expect(second.exitCode == 1 && second.stderr.contains("another 'vaultsync watch' already watches this vault (pid \(first.pid))"), "\(second)")
            try write(folders[0], "manual.md", "synced by hand")
            let manual = try await vaultsync(["sync", folders[0].path, "--json"])
            #expect(manual.exitCode == 0, "\(manual)")
            first.send(SIGTERM)
            #expect(try await first.finish(timeout: .seconds(30)).exitCode == 0)
        }
    }

    /// A watcher on a device that leaves a folder out (issue 58) does not wake for changes there,
    /// sends none of them, and takes none of another device's changes there.
    @Test func aWatcherLeavesOutTheFoldersItsDeviceDoesNotHold() async throws {
        try await TestServer.with { server in
            let folders = try await linkedFolders(["laptop", "phone"], to: server.baseURL)
            defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
            let (laptop, phone) = (folders[0], folders[1])
            let skipped = try await vaultsync(["folders", "skip", "Archive", "--vault", phone.path])
            #expect(skipped.exitCode == 0, "\(skipped)")
            let watcher = try watch(phone)
            defer { watcher.send(SIGKILL) }
            try await eventually("connected", within: .seconds(150)) { WatchLog(watcher).connected }
            func localSyncs() -> Int { WatchLog(watcher).events.filter { $0["event"] as? String == "sync_started" && $0["reason"] as? String == "local" }.count }
            let before = localSyncs()
            try write(phone, "Archive/scan.md", "made on the phone, left out")
            try await Task.sleep(for: .seconds(2))  // ten debounces: a sync it would start has started
            #expect(localSyncs() == before, "no sync for a change in a folder left out")
            try write(phone, "notes/held.md", "made on the phone")
            try await eventually("the held note goes up") { WatchLog(watcher).reports.contains { ($0["pushed"] as? [String] ?? []).contains("notes/held.md") } }
            #expect(!WatchLog(watcher).reports.contains { ($0["pushed"] as? [String] ?? []).contains("Archive/scan.md") })
            // Another device's change inside the folder left out does not wake it (the feed leaves
            // it out); one in a folder it holds does.
            func serverSyncs() -> Int { WatchLog(watcher).events.filter { $0["event"] as? String == "sync_started" && $0["reason"] as? String == "server" }.count }
            let quiet = serverSyncs()
            try write(laptop, "Archive/other.md", "from the laptop")
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            try await Task.sleep(for: .seconds(2))
            #expect(serverSyncs() == quiet, "no sync for another device's change in a folder left out")
            try write(laptop, "notes/other.md", "from the laptop")
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            try await eventually("the laptop's held note arrives") { content(phone, "notes/other.md") == "from the laptop" }
            #expect(serverSyncs() > quiet)
            #expect(content(phone, "Archive/other.md") == nil, "nothing is taken in a folder left out")
            #expect(content(laptop, "Archive/scan.md") == nil && content(laptop, "notes/held.md") == "made on the phone")

            // The folder taken back in while the watcher runs: its next sync takes the new choice,
            // and from then on it hears the folder both ways.
            #expect(try await vaultsync(["folders", "all", "--vault", phone.path]).exitCode == 0)
            #expect(content(phone, "Archive/other.md") == "from the laptop")
            try write(phone, "notes/nudge.md", "a change so that the watcher syncs")
            try await eventually("the watcher takes the new folders") { WatchLog(watcher).events.contains { $0["event"] as? String == "rules_changed" } }
            try write(phone, "Archive/scan.md", "now held: goes up")
            try await eventually("a change in the folder taken back goes up") { WatchLog(watcher).reports.contains { ($0["pushed"] as? [String] ?? []).contains("Archive/scan.md") } }
            try write(laptop, "Archive/later.md", "from the laptop, later")
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            try await eventually("another device's change in it arrives") { content(phone, "Archive/later.md") == "from the laptop, later" }
        }
    }

    /// 500 files written at once on one device reach the other in a bounded number of syncs.
    @Test func aBurstOfWritesSyncsInAFewRounds() async throws {
        try await withTwoWatchers { laptop, phone, laptopWatch, phoneWatch in
            for n in 0..<500 { try write(laptop, "burst/n\(n).md", "note \(n)") }
            try await eventually("all 500 reach the phone", within: .seconds(120)) {
                (try? FileManager.default.contentsOfDirectory(atPath: phone.appendingPathComponent("burst").path).count) == 500
            }
            #expect(content(phone, "burst/n499.md") == "note 499")
            let rounds = WatchLog(laptopWatch).events.filter { $0["event"] as? String == "sync_started" && $0["reason"] as? String != "start" }.count
            #expect(rounds <= 10, "500 writes took \(rounds) syncs")
        }
    }

    /// The server goes away and comes back on the same address: the watcher says OFFLINE, keeps
    /// the edits made meanwhile, and pushes them once it is back; the other device gets them. So do
    /// long-polling watchers.
    @Test(arguments: [[], ["--long-poll"]]) func aWatcherRidesOutTheServerGoingAway(_ extra: [String]) async throws {
        let shared = URL(fileURLWithPath: "/tmp/vaultsync-watch-blobs-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: shared) }
        let secret = "one secret for both lives of this server"
        let blobs = "file://\(shared.path)"
        var folders: [URL] = []
        defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
        var watchers: [CLIProcess] = []
        defer { watchers.forEach { $0.send(SIGKILL) } }
        let (port, database) = try await TestServer.with(configure: { $0.jwtSecret = secret; $0.blobStore = blobs }) { server in
            folders = try await linkedFolders(["laptop", "phone"], to: server.baseURL)
            watchers = try folders.map { try watch($0, extra) }
            // The start is where a suite of 2 cores is busiest (every test starting servers and
            // processes at once): it gets more time, and a failure says what the watcher printed
            // (the start of its errors too: a crash's message comes before the backtrace).
            for process in watchers {
                try await eventually("connected", within: .seconds(150), explaining: {
                    let errors = process.stderrSoFar
                    return "\(process.stdoutSoFar.suffix(3000))\n\(errors.prefix(3000))\(errors.count > 5000 ? "\n…\n" + errors.suffix(2000) : "")"
                }) {
                    WatchLog(process).connected
                }
            }
            return (server.baseURL.port!, server.databaseURL)
        }
        try await eventually("the laptop notices") { WatchLog(watchers[0]).events.contains { $0["event"] as? String == "connection" && $0["connected"] as? Bool == false } }
        try write(folders[0], "offline.md", "written while the server was away")
        try await eventually("the laptop tried and stayed offline") {
            WatchLog(watchers[0]).reports.contains { ($0["status"] as? String) == "OFFLINE" }
        }
        let status = try await vaultsync(["status", folders[0].path])
        #expect(status.stdout.contains("OFFLINE"), "\(status)")

        try await TestServer.with(configure: { $0.jwtSecret = secret; $0.blobStore = blobs; $0.port = port; $0.databaseURL = database }) { _ in
            try await eventually("the edit reaches the phone", within: .seconds(90)) { content(folders[1], "offline.md") == "written while the server was away" }
        }
    }

    /// When the access token expires the server closes the feed; the watcher renews the token,
    /// connects again and goes on hearing changes (the test moves the server's clock).
    @Test func aWatcherRenewsItsTokenWhenTheFeedSaysItExpired() async throws {
        try await TestServer.with { server in
            let folders = try await linkedFolders(["laptop", "phone"], to: server.baseURL)
            defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
            let laptopWatch = try watch(folders[0])
            defer { laptopWatch.send(SIGKILL) }
            try await eventually("connected") { WatchLog(laptopWatch).connected }
            server.clock.advance(by: 16 * 60)  // past the 15-minute access token
            try await eventually("the expiry is noticed") {
                WatchLog(laptopWatch).events.contains { $0["event"] as? String == "connection" && ($0["detail"] as? String)?.contains("expired") == true }
            }
            try await eventually("connected again") { WatchLog(laptopWatch).connected }
            try write(folders[1], "after-renewal.md", "still live")
            #expect(try await vaultsync(["sync", folders[1].path]).exitCode == 0)
            try await eventually("the phone's change reaches the laptop") { content(folders[0], "after-renewal.md") == "still live" }
        }
    }

    /// `vaultsync logout` beside a running watcher: the watcher stops (exit 4, the reason as text
    /// and as JSON) instead of syncing on with the tokens it still held; nothing written after the
    /// logout leaves the device.
    @Test func aWatcherStopsWhenItsVaultIsSignedOut() async throws {
        try await withTwoWatchers { laptop, phone, laptopWatch, _ in
            #expect(try await vaultsync(["logout", laptop.path]).exitCode == 0)
            try write(laptop, "after-logout.md", "must stay here")
            let ended = try await laptopWatch.finish(timeout: .seconds(60))
            #expect(ended.exitCode == 4 && ended.stderr.contains("is signed out: run 'vaultsync login"), "\(ended)")
            let last = try #require(WatchLog(ended.stdout).events.last, "\(ended)")
            #expect(last["exit_code"] as? Int == 4 && (last["error"] as? String)?.contains("signed out") == true)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(content(phone, "after-logout.md") == nil, "nothing went up after the logout")
        }
    }

    /// A device revoked from another one while its watcher runs: the server closes its feed at
    /// once, the refresh is refused, and the watcher stops with exit code 4, its files untouched.
    @Test(arguments: [[], ["--long-poll"]]) func aWatcherOfARevokedDeviceStops(_ extra: [String]) async throws {
        try await withTwoWatchers(extra) { laptop, phone, laptopWatch, _ in
            try write(laptop, "kept.md", "written before the revocation")
            try await eventually("synced") { content(phone, "kept.md") != nil }
            let revoked = try await vaultsync(["devices", "revoke", "laptop", "--vault", phone.path])
            #expect(revoked.exitCode == 0, "\(revoked)")
            let ended = try await laptopWatch.finish(timeout: .seconds(60))
            #expect(ended.exitCode == 4 && ended.stderr.contains("revoked"), "\(ended)")
            #expect(content(laptop, "kept.md") == "written before the revocation", "its files stay")
        }
    }

    /// The vault deleted from another device while a watcher runs: the server closes its feed at
    /// once, the sync that follows is refused as `vault_deleted`, and the watcher stops with exit
    /// code 5 and the reason instead of retrying for ever; `sync` and `status` say the same, and
    /// the folder's files stay.
    @Test(arguments: [[], ["--long-poll"]]) func aWatcherStopsWhenItsVaultIsDeletedElsewhere(_ extra: [String]) async throws {
        try await withTwoWatchers(extra) { laptop, phone, laptopWatch, phoneWatch in
            try write(laptop, "kept.md", "written before the deletion")
            try await eventually("synced") { content(phone, "kept.md") != nil }
            laptopWatch.send(SIGINT)
            _ = try await laptopWatch.finish(timeout: .seconds(30))
            let deleted = try await vaultsync(["vaults", "delete", "default", "--yes", "--vault", laptop.path])
            #expect(deleted.exitCode == 0, "\(deleted)")
            let ended = try await phoneWatch.finish(timeout: .seconds(30))
            #expect(ended.exitCode == 5 && ended.stderr.contains("syncs with a vault that was deleted on the server"), "\(ended)")
            let log = WatchLog(ended.stdout)
            #expect(log.events.contains { ($0["error"] as? String)?.contains("was deleted") == true && $0["event"] as? String == "sync_failed" }, "\(ended)")
            #expect(log.events.last?["exit_code"] as? Int == 5, "\(ended)")
            #expect(log.events.filter { $0["event"] as? String == "sync_failed" }.count == 1, "no retries: \(ended)")

            let sync = try await vaultsync(["sync", phone.path, "--json"])
            let said = try sync.json()["error"] as? String
            #expect(sync.exitCode == 5 && said?.contains("'vaultsync init") == true, "\(sync)")
            let status = try await vaultsync(["status", phone.path, "--json"]).json()
            #expect(status["status"] as? String == "ERROR" && (status["last_failure"] as? String)?.contains("deleted on the server") == true, "\(status)")
            #expect(content(phone, "kept.md") == "written before the deletion", "its files stay")
        }
    }

    /// A server behind a proxy that fails the first push with a 500, a folder linked through it
    /// and a watcher on it (long polls: the proxy passes no WebSocket), connected; the proxy is
    /// stopped and the watcher killed afterwards.
    func withWatcherBehindAFailingPush(_ body: (URL, CLIProcess, FailingProxy) async throws -> Void) async throws {
        try await TestServer.with { server in
            let proxy = try await FailingProxy.start(to: server.baseURL, failing: "POST", "/vault/push")
            do {
                let folders = try await linkedFolders(["laptop"], to: proxy.url)
                defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
                let watcher = try watch(folders[0], ["--long-poll", "--safety-interval", "3600"])
                defer { watcher.send(SIGKILL) }
                try await eventually("connected") { WatchLog(watcher).connected }
                try await body(folders[0], watcher, proxy)
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }

    /// A sync that fails on one request is tried again about 5 s later (the schedule's first
    /// retry), not only at the next edit or the safety net: a real watcher behind a proxy that
    /// fails the first push with a 500 and passes everything else to the real server.
    @Test func aFailedSyncIsTriedAgainAboutFiveSecondsLater() async throws {
        try await withWatcherBehindAFailingPush { folder, watcher, proxy in
            // Moved in whole: one change event, so no local change starts a sync before the retry.
            let outside = URL(fileURLWithPath: folder.path + "-a.md")
            try Data("one".utf8).write(to: outside)
            try FileManager.default.moveItem(at: outside, to: folder.appendingPathComponent("a.md"))
            try await eventually("a.md went up", within: .seconds(30)) {
                WatchLog(watcher).reports.contains { ($0["pushed"] as? [String])?.contains("a.md") == true }
            }
            #expect(proxy.failed == ["POST /vault/push"])
            let events = WatchLog(watcher).events
            let retry = try #require(events.firstIndex { $0["event"] as? String == "sync_started" && $0["reason"] as? String == "retry" }, "\(events)")
            let failed = try #require(events[..<retry].last { ["sync_finished", "sync_failed"].contains($0["event"] as? String) })
            let report = failed["report"] as? [String: Any]
            #expect(failed["event"] as? String == "sync_failed" || !((report?["failures"] as? [String]) ?? []).isEmpty, "the sync before the retry failed: \(failed)")
            let waited = try #require(WireDate.parse(events[retry]["time"] as? String ?? "")).timeIntervalSince(try #require(WireDate.parse(failed["time"] as? String ?? "")))
            #expect((4.5...8).contains(waited), "retried \(waited) s after the failure")
            let after = try #require(events[retry...].first { $0["event"] as? String == "sync_finished" }?["report"] as? [String: Any])
            #expect(after["pushed"] as? [String] == ["a.md"] && after["status"] as? String == "IDLE", "\(after)")
        }
    }

    /// A change the watcher heard of that a manual sync beside it scanned but could not carry up
    /// (its push failed) goes up with the watcher's next sync, not only with the safety net.
    /// Found by the simulation: the watcher took the manual sync's scan for a write of its own.
    @Test func aChangeAFailedManualSyncScannedStillGoesUpWithTheWatcher() async throws {
        try await withWatcherBehindAFailingPush { folder, watcher, proxy in
            try await eventually("idle") {
                let events = WatchLog(watcher).events.compactMap { $0["event"] as? String }
                let started = events.filter { $0 == "sync_started" }.count
                return started > 0 && started == events.filter { ["sync_finished", "sync_failed"].contains($0) }.count
            }
            // Stopped (not in a sync), the watcher hears of the write only once the manual sync has failed.
            watcher.send(SIGSTOP)
            try write(folder, "a.md", "one")
            let manual = try await vaultsync(["sync", folder.path, "--json"])
            watcher.send(SIGCONT)
            #expect(proxy.failed == ["POST /vault/push"] && (try? manual.json()["pushed"] as? [String]) ?? [] == [], "\(manual)")
            try await eventually("a.md went up with the watcher", within: .seconds(30)) {
                WatchLog(watcher).reports.contains { ($0["pushed"] as? [String])?.contains("a.md") == true }
            }
            #expect(!WatchLog(watcher).events.contains { $0["reason"] as? String == "safety-net" })
        }
    }

    /// kill -9 of a watcher in the middle of a sync, then a new watcher: nothing is lost.
    @Test func aWatcherKilledMidSyncLosesNothing() async throws {
        try await TestServer.with { server in
            let folders = try await linkedFolders(["laptop", "phone"], to: server.baseURL)
            let (laptop, phone) = (folders[0], folders[1])
            defer { folders.forEach { try? FileManager.default.removeItem(at: $0) } }
            let first = try watch(laptop)
            defer { first.send(SIGKILL) }
            try await eventually("connected") { WatchLog(first).connected }
            func started() -> Int { WatchLog(first).events.filter { $0["event"] as? String == "sync_started" }.count }
            let before = started()
            for n in 0..<300 { try write(laptop, "many/n\(n).md", "note \(n)") }
            // Whatever started it (these files, or the catch-up after connecting): a sync that
            // began after the first file was written is one that sends them.
            try await eventually("a sync of the new files started") { started() > before }
            first.send(SIGKILL)
            _ = try await first.finish()
            let second = try watch(laptop)
            defer { second.send(SIGKILL) }
            let phoneWatch = try watch(phone)
            defer { phoneWatch.send(SIGKILL) }
            try await eventually("all 300 reach the phone", within: .seconds(120)) {
                (0..<300).allSatisfy { content(phone, "many/n\($0).md") == "note \($0)" }
            }
        }
    }
}

/// A watcher's `--json` output read so far.
struct WatchLog {
    let events: [[String: Any]]

    init(_ process: CLIProcess) { self.init(process.stdoutSoFar) }

    init(_ output: String) {
        events = output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// Whether the change feed is connected now (the last connection event said so).
    var connected: Bool {
        events.last { $0["event"] as? String == "connection" }?["connected"] as? Bool == true
    }

    /// The reports of finished syncs.
    var reports: [[String: Any]] { events.compactMap { $0["report"] as? [String: Any] } }

    /// Each finished sync: why it started, and the paths it pushed or pulled.
    var syncs: [(reason: String, moved: [String])] {
        var reason = ""
        var result: [(reason: String, moved: [String])] = []
        for event in events {
            if event["event"] as? String == "sync_started" { reason = event["reason"] as? String ?? "" }
            if let report = event["report"] as? [String: Any] {
                result.append((reason, (report["pushed"] as? [String] ?? []) + (report["pulled"] as? [String] ?? [])))
            }
        }
        return result
    }

    /// Every path pulled by any sync.
    var pulled: Set<String> { Set(reports.flatMap { $0["pulled"] as? [String] ?? [] }) }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
