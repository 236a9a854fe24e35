public import Foundation
import Synchronization
import SeededRandom
import SyncClient
import SyncCore
import SyncProtocol
import SyncServer
import VaultCrypto

/// Runs a ``SimScenario`` with the real `SyncEngine`s of several devices against the real server
/// and Postgres, one step at a time (so the order of events is the scenario's), and checks the
/// invariants after a final quiet round. Returns the first broken invariant, if any.
///
/// Crashes happen at request boundaries and before any write to a device's disk (``SimDisk``):
/// from the crash on, the device's network and disk are dead; the engine is then dropped (after a
/// power cut, what was not durable is undone) and the vault opened again from its folder and `sync.db`.
public final class Simulation {
    let scenario: SimScenario
    /// The first server instance: the simulation's own calls (accounts, checks, purges) go to it.
    let server: TestServer
    /// Both instances; the devices reach them through ``balancer``.
    let servers: SimServers
    let balancer: Balancer
    /// Server restarts so far (they alternate between the instances, the second first).
    var restarts = 0
    /// The server's time at the start of each step so far (a restore as of a step's moment).
    var moments: [Date] = []
    let user: TestUser
    /// Who each device belongs to when the vault is shared (``SimScenario/writers``,
    /// ``SimScenario/readers``), and the vault's id they name it by; the owner's devices are absent.
    var people: [Int: TestUser] = [:]
    var sharedVault: String?
    /// Whether an encrypted vault was shared yet (``shareEncrypted()``).
    var sharedEncrypted = false
    let folder: URL
    /// Beside ``folder`` on its file system: the files a power cut may bring back (``SimDisk``).
    var kept: URL { folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + "-kept") }
    /// Beside ``folder``: the other people's folders of their own vaults (``shareEncrypted()``).
    var others: URL { folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + "-others") }
    var devices: [Device] = []
    var ledger = Ledger()
    let confirmed = Confirmed()

    /// Versions the server confirmed, by path, as the transports saw them.
    final class Confirmed: Sendable {
        let versions = Mutex<[VaultPath: [Int: ContentHash]]>([:])
        func add(_ files: [ConfirmedFile]) {
            versions.withLock { known in for file in files { known[file.path, default: [:]][file.version] = file.contentHash } }
        }
    }
    let readerID: UUID
    /// The watchers' time (``SimOperation/wait(seconds:)`` moves it).
    let clock = SimClock(start: .now)
    /// The watching devices' running watchers (``Simulation+Watchers``).
    var watchers: [Int: Watching] = [:]
    /// The vault's sequences, which the watchers' feeds must have heard of (``SimFeed``).
    var sequences: VaultSequences!
    /// The vault's sequence the latest purge that took tombstones announced to every device.
    var purgeAnnounced: Int64 = 0
    /// Decides which local changes a watcher hears of.
    var localEvents: SplitMix
    /// A watching device's oldest local change its watcher heard of, not yet carried by a sync
    /// that got through; and its oldest one the watcher did not hear of, not yet carried by a
    /// sync that scanned the whole folder.
    var oldestUnsynced: [Int: ContinuousClock.Instant] = [:]
    var droppedSince: [Int: ContinuousClock.Instant] = [:]
    /// When each device last came online.
    var onlineSince: [Int: ContinuousClock.Instant] = [:]
    /// Devices that reconciled from the full state after a purge (``noteAway(_:_:)``).
    var awayAcrossPurge: Set<Int> = []
    /// Devices that died at a disk step since their last sync that ended normally: a file the sync
    /// had put in place but not recorded yet reads, deleted, as the older version `sync.db` names,
    /// and the other device's edit beats that deletion (the file comes back: the safe side, since
    /// a file merely not yet put in place looks the same).
    var crashedOnDisk: Set<Int> = []
    /// When (server clock) a device last lost the answer to a token refresh.
    var refreshAnswerLost: [Int: Date] = [:]
    /// Prints every sync's report (replaying a failure by hand).
    var verbose = false
    /// Each person's WebDAV client, once it has its app password; and the notes each read and
    /// keeps (by person and path).
    var dav: [SimPerson: SimDAV] = [:]
    var davHeld: [String: SimDAV.Read] = [:]

    /// One device: a vault folder, its engine, its transport and its disk.
    struct Device {
        let index: Int
        let root: URL
        let transport: FaultyTransport
        let disk: SimDisk
        var engine: SyncEngine
    }

    /// What the history did, for the invariants.
    struct Ledger {
        /// Every token written, and where.
        var written: [String: String] = [:]
        /// Tokens a device removed having seen them (replaced them, or deleted their file).
        var excused: Set<String> = []
        /// Tokens of WebDAV writes kept as conflict records on the server (a visible conflict):
        /// each must be in an open record at the end.
        var inRecords: [String: String] = [:]
        /// Paths deleted by a device that held every version any device or the server had, and
        /// not written since: they must stay gone.
        var mustBeGone: [String: Int] = [:]
        /// Paths deleted (or renamed away) at some point: their history may have been purged.
        var everDeleted: Set<String> = []
        /// Conflicts seen in a scenario whose edits never collide.
        var unexpectedConflicts: [String] = []
        /// Tokens a reader's device wrote: they must reach neither the server nor another device.
        var readerTokens: Set<String> = []
        /// Tokens a device leaving `Journal/` out wrote (anywhere): only these may be in its `Journal/`.
        var selectiveTokens: Set<String> = []
        /// Paths the web app restored an older version of: it brings back older lines, which may
        /// collide with a device's edit of them even where edits never collide otherwise, and
        /// which may beat a deletion made without seeing the restore.
        var restored: Set<String> = []
    }

    /// The tombstone retention the simulation's server runs with (``withServer(_:)``).
    public static let retention: Duration = .seconds(3600)

    private init(scenario: SimScenario, servers: SimServers, user: TestUser, readerID: UUID) {
        self.scenario = scenario
        self.server = servers.first
        self.servers = servers
        self.balancer = Balancer(servers.all)
        self.user = user
        self.readerID = readerID
        localEvents = SplitMix(seed: scenario.seed &+ 0x10ca1)
        // Memory-backed where the machine has it: the histories test ordering, not the disk, and
        // thousands of them would otherwise wait mostly on SQLite's and the file writer's fsyncs.
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        folder = URL(fileURLWithPath: base).appendingPathComponent("vaultsync-sim-\(UUID().uuidString.prefix(8))")
    }

    /// Runs `scenario` on `servers` with a new account; nil when every invariant holds.
    public static func run(_ scenario: SimScenario, on servers: SimServers, verbose: Bool = false) async throws -> String? {
        let user = try await servers.first.newUser()
        let reader = try await user.newDevice("reader")
        let simulation = Simulation(scenario: scenario, servers: servers, user: user, readerID: reader.info.deviceID)
        simulation.verbose = verbose
        defer {
            try? FileManager.default.removeItem(at: simulation.folder)
            try? FileManager.default.removeItem(at: simulation.kept)
            try? FileManager.default.removeItem(at: simulation.others)
        }
        let outcome: String?
        do {
            outcome = try await simulation.run()
        } catch {
            outcome = "threw: \(error)"  // an error no step expected fails the history too (and is shrunk)
        }
        for device in Array(simulation.watchers.keys) { await simulation.stopWatcher(device) }
        return outcome
    }

    func run() async throws -> String? {
        let setUpStarted = ContinuousClock.now
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A file beside the vaults: nothing may touch it.
        try Data("outside".utf8).write(to: folder.appendingPathComponent("outside.txt"))
        let vault = try await server.api.vaults(accessToken: user.tokens.accessToken).first { $0.name == "default" }!.vaultID
        sequences = try VaultSequences(databaseURL: server.databaseURL, vaultID: vault)
        try await share(vault)
        for index in 0..<scenario.devices {
            let root = folder.appendingPathComponent("device\(index)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let transport = newTransport()
            // An encrypted vault is shared once the owner's first device made its key.
            if scenario.encrypted, people[index] != nil, !sharedEncrypted { try await shareEncrypted() }
            try await link(index, root, transport)
            let disk = newDisk(index, transport)
            devices.append(Device(index: index, root: root, transport: transport, disk: disk, engine: try open(root, transport, disk)))
            if scenario.selective.contains(index) { try IgnoreFile.save(Self.selection, root: root) }
        }
        // A shared starting point.
        for path in SimScenario.sharedNotes { try write(0, path, NoteText.template(path, devices: scenario.devices)) }
        for device in devices.indices { _ = try await devices[device].engine.sync() }
        for device in scenario.watching.sorted() { startWatcher(device) }
        if let failure = try await settle() { return "starting the watchers: \(failure)" }

        if verbose { print("set up in \(ContinuousClock.now - setUpStarted)") }
        for (index, operation) in scenario.operations.enumerated() {
            let started = ContinuousClock.now
            if let failure = try await perform(operation, index: index) { return "step \(index) (\(operation)): \(failure)" }
            if let failure = try await settle() { return "step \(index) (\(operation)), its watchers: \(failure)" }
            if verbose { print("step \(index) (\(operation)) took \(ContinuousClock.now - started)") }
        }
        let settleStarted = ContinuousClock.now
        defer { if verbose { print("settled and checked in \(ContinuousClock.now - settleStarted); \(balancer.routed) requests to the two instances in turn") } }
        return try await settleAndCheck()
    }

    /// Shares the owner's vault with a writer and a reader, each another account, when the
    /// scenario has their devices (an encrypted vault later: ``shareEncrypted()``).
    func share(_ vault: UUID) async throws {
        guard !scenario.writers.isEmpty || !scenario.readers.isEmpty else { return }
        sharedVault = vault.uuidString
        for (devices, role) in [(scenario.writers, VaultRole.writer), (scenario.readers, .reader)] where !devices.isEmpty {
            let person = try await server.newUser()
            if !scenario.encrypted {
                let invitation = try await server.api.invite(InviteRequest(email: person.email, role: role), to: vault, accessToken: user.tokens.accessToken)
                _ = try await server.api.acceptInvitation(invitation.invitationID, accessToken: person.tokens.accessToken)
            }
            for device in devices { people[device] = person }
        }
    }

    func open(_ root: URL, _ transport: FaultyTransport, _ disk: SimDisk) throws -> SyncEngine {
        let clock = server.clock
        // The mass-delete guard is on, as users run it: deleting the last files of a small vault
        // must go through (a scenario once found it held back).
        return try SyncEngine(
            root: root, transport: transport, transfers: TransferSettings(parallelTransfers: 1), lockTimeout: .seconds(5), massDeletePolicy: .standard,
            now: { clock.now }, diskSteps: disk)
    }

    /// A device's network: the faults, and the balancer in front of the server instances.
    func newTransport() -> FaultyTransport {
        FaultyTransport(route: { [balancer] in balancer.route($0) }, onConfirmed: confirmed.add)
    }

    /// A device's disk: a crash at one of its steps kills the device's network too.
    func newDisk(_ index: Int, _ transport: FaultyTransport) -> SimDisk {
        SimDisk(keep: kept.appendingPathComponent("d\(index)"), verbose: verbose, onCrash: { transport.crashNow() })
    }

    // MARK: steps

    func perform(_ operation: SimOperation, index: Int) async throws -> String? {
        moments.append(server.clock.now)
        switch operation {
        case .edit(let device, let path, let edit, let token):
            var text = read(device, path)
            if text == nil {
                // A note gone here: write it anew, unless that would collide with another device's creation.
                guard scenario.collisions || path.hasPrefix("d\(device)/") else { return nil }
                text = NoteText.template(path, devices: scenario.devices)
            }
            let (edited, replaced) = NoteText.apply(edit, token: token, device: device, to: text!)
            if let replaced { ledger.excused.formUnion(Tokens.find(in: replaced)) }
            try write(device, path, edited)
            noteWrite(path, token: token, by: device)
            changedLocally(device, path)
        case .attach(let device, let path, let token):
            if let old = read(device, path) { ledger.excused.formUnion(Tokens.find(in: String(old.prefix(32)))) }
            try write(device, path, token + "\n" + String(repeating: "x", count: Int(InlineContent.maxFileBytes) + 500))
            noteWrite(path, token: token, by: device)
            changedLocally(device, path)
        case .delete(let device, let path):
            guard let text = read(device, path) else { return nil }
            try await deleted(device, path, text, at: index, excusing: true)
            try FileManager.default.removeItem(at: url(device, path))
            changedLocally(device, path)
        case .rename(let device, let from, let to):
            guard let text = read(device, from), read(device, to) == nil else { return nil }
            try await deleted(device, from, text, at: index, excusing: false)  // the tokens move along
            try write(device, to, text)
            try FileManager.default.removeItem(at: url(device, from))
            ledger.mustBeGone[to] = nil
            changedLocally(device, from)
            changedLocally(device, to)
            for token in Tokens.find(in: text) { ledger.written[token] = to }
        case .sync(let device, let fault):
            return try await sync(device, fault: fault)
        case .crash(let device, let step, let powerCut):
            return try await sync(device, fault: nil, crashAt: step, powerCut: powerCut)
        case .offline(let device):
            devices[device].transport.setOffline(true)
            watchers[device]?.feed.cut("the network went away")
        case .online(let device):
            // A watcher's feed reconnects at its next try, and catches up.
            devices[device].transport.setOffline(false)
            onlineSince[device] = clock.now
        case .restartServer:
            restarts += 1
            // Its connections end as it stops (cut first, so that its graceful stop need not wait for them).
            for watching in watchers.values { watching.feed.cut("the server instance restarted", instance: restarts % 2) }
            try await servers.all[restarts % 2].restart()
        case .purge:
            // Read while the watchers are quiet: once the clock moves their tokens expire, and a
            // watcher that renews its own may push before the purge ends. The purge announces the
            // sequence at its commit, this one or later; a device's own later pushes are not
            // announced to it, so the sequence after the purge may be one no feed owes.
            let before = try sequences.purgeMark()
            server.clock.advance(by: 2 * Double(Self.retention.components.seconds))
            _ = try await server.purge()
            if try sequences.purgeMark().purgedThrough != before.purgedThrough { purgeAnnounced = before.current }
            try noteBehindARekeyAcrossAPurge()
        case .resolve(let device): try await resolveConflicts(device)
        case .wait(let seconds): return try await wait(seconds)
        case .davRead(let path, let person): try await davRead(path, by: person)
        case .davWrite(let path, let token, let ifMatch, let person): return try await davWrite(path, token: token, ifMatch: ifMatch, by: person)
        case .rekey(let device, let contents): return try await rekey(device, contents: contents)
        case .webRestore(let path): return try await webRestore(path)
        case .restoreAsOf(let back): return try await restoreAsOf(stepsBack: back)
        }
        return nil
    }

    /// One sync of `device` with `fault` planned, or a death at its `crashAt`-th disk step (with a
    /// `powerCut`); a crashed device is reopened from its folder.
    func sync(_ device: Int, fault: TransportFault?, crashAt: Int? = nil, powerCut: Bool = false) async throws -> String? {
        let started = clock.now
        devices[device].transport.arm(fault)
        devices[device].disk.arm(crashAt: crashAt)
        let report: SyncReport?
        do {
            report = try await devices[device].engine.sync()
        } catch {
            report = nil
            // A sync may fail as a whole under a fault; without one it must not.
            if await !unlockedSharingKeys(device, after: error), fault == nil, !devices[device].transport.crashed { return "sync failed without a fault: \(error)" }
        }
        if verbose { print("d\(device) sync [\(fault.map(String.init(describing:)) ?? "-")]: \(report.map(String.init(describing:)) ?? "threw")") }
        // The oldest refresh answer lost since the device last received tokens: the token it keeps
        // goes stale from then on.
        if devices[device].transport.refreshAnswerLost {
            if refreshAnswerLost[device] == nil { refreshAnswerLost[device] = server.clock.now }
        } else if devices[device].transport.refreshAnswered {
            refreshAnswerLost[device] = nil
        }
        if devices[device].disk.crashed { crashedOnDisk.insert(device) }
        // Before a dead device is reopened: a sync it died in did not end normally.
        if let report { await noteReport(device, report, started: started) }
        if devices[device].transport.crashed {
            // The device died: so did its watcher, which its user starts again with the device.
            await stopWatcher(device)
            if powerCut { devices[device].disk.losePower() }
            let transport = newTransport()
            transport.setOffline(devices[device].transport.isOffline)
            let disk = newDisk(device, transport)
            devices[device] = Device(index: device, root: devices[device].root, transport: transport, disk: disk, engine: try open(devices[device].root, transport, disk))
            if scenario.watching.contains(device) { startWatcher(device) }
        }
        devices[device].disk.arm(crashAt: nil)  // the crash planned belongs to this sync only
        devices[device].transport.arm(nil)
        return nil
    }

    /// Time passes: each watcher syncs when its schedule says so. Afterwards no watcher of a
    /// device online holds a local change it heard of older than the hard cap plus one retry, or
    /// one it did not hear of older than the safety net's interval plus that.
    func wait(_ seconds: Int) async throws -> String? {
        server.clock.advance(by: Double(seconds))
        if let failure = try await passTime(until: clock.now + .seconds(seconds)) { return failure }
        return unsyncedTooLong()
    }

    func unsyncedTooLong() -> String? {
        let settings = WatchSchedule.Settings()
        let bound = settings.maxDelay * 2 + settings.debounce
        for (changes, heard) in [(oldestUnsynced, true), (droppedSince, false)] {
            for (device, since) in changes.sorted(by: { $0.key < $1.key }) where watchers[device] != nil && !devices[device].transport.isOffline {
                let from = max(since, onlineSince[device] ?? since)
                if from + bound + (heard ? .zero : settings.safetyInterval) < clock.now {
                    return "d\(device) watches and is online, but a local change its watcher \(heard ? "heard of" : "did not hear of") made \(clock.now - since) ago is not synced yet"
                }
            }
        }
        return nil
    }

    func signIn(_ device: Int) async throws {
        try await link(device, devices[device].root, devices[device].transport)
        devices[device].engine = try open(devices[device].root, devices[device].transport, devices[device].disk)
    }

    /// Links (or signs in again) device `index`'s folder, as its person. In an encrypted vault the
    /// first device makes the vault's key and the others open it with the passphrase.
    func link(_ index: Int, _ root: URL, _ transport: FaultyTransport) async throws {
        let person = people[index] ?? user
        let credential = SignInCredential.password(email: person.email, password: person.password)
        let vault = people[index] == nil ? nil : sharedVault
        guard scenario.encrypted else {
            _ = try await SyncEngine.link(root: root, server: server.baseURL, credential: credential, deviceName: "d\(index)", vault: vault, transport: transport)
            return
        }
        let passphrase = Self.passphrase
        let key: VaultKeyChoice = index == 0 && devices.isEmpty ? .create(passphrase: passphrase, scrypt: TestVault.cheapScrypt) : .unlock { .passphrase(passphrase) }
        _ = try await SyncEngine.link(root: root, server: server.baseURL, credential: credential, deviceName: "d\(index)", vault: vault, key: key, transport: transport)
    }

    /// What stops a history from being set up (not an invariant it broke).
    enum SetupError: Error { case noVaultKey }

    /// A device that did not sync across a purge reconciles from the full state, and the merge
    /// base of a file deleted and re-created meanwhile went with the purge: a conflict copy is
    /// then the rule (nothing is lost), also where the edits would have merged.
    func noteAway(_ device: Int, _ report: SyncReport) {
        if report.notices.contains(where: { $0.contains("longer than the server keeps deletions") }) { awayAcrossPurge.insert(device) }
    }

    /// Conflicts a history whose edits never collide must not have. A file deleted at some point
    /// is excused: an edit made beside the deletion brings back the line of the file it started
    /// from, older than what the other devices merged since, and that cannot merge cleanly. So is
    /// a file the web app restored an older version of.
    func unexpected(_ conflicts: [VaultPath]) -> [VaultPath] {
        conflicts.filter { !ledger.everDeleted.contains($0.rawValue) && !ledger.restored.contains($0.rawValue) }
    }

    /// What a device of ``SimScenario/selective`` holds.
    static let selection = FolderSelection(mode: .skip, folders: ["Journal"])

    func noteWrite(_ path: String, token: String, by device: Int) {
        ledger.written[token] = path
        if scenario.selective.contains(device) { ledger.selectiveTokens.insert(token) }
        if scenario.readers.contains(device) {
            ledger.readerTokens.insert(token)
        } else {
            ledger.mustBeGone[path] = nil
        }
    }

    /// Records a deletion: the device saw the tokens it deletes; the path must stay gone when no
    /// other device and not the server holds anything the deleting device did not see.
    func deleted(_ device: Int, _ path: String, _ text: String, at step: Int, excusing: Bool) async throws {
        if excusing { ledger.excused.formUnion(Tokens.find(in: text)) }
        ledger.everDeleted.insert(path)
        // What the deleting device saw: the edits' tokens, and which note it was (a note renamed
        // onto this path is another note even before anyone edits it).
        let seen = Tokens.identity(of: text)
        var clean = true
        for other in devices.indices where other != device {
            if let copy = read(other, path), !Tokens.identity(of: copy).isSubset(of: seen) { clean = false }
            // An open conflict's resolution may rightly write the file again.
            if try await devices[other].engine.state.conflicts().contains(where: { $0.path.rawValue == path }) { clean = false }
        }
        if clean, let current = try await serverContent(path), !Tokens.identity(of: current).isSubset(of: seen) { clean = false }
        if crashedOnDisk.contains(device) { clean = false }
        // A restore made in the web app is a new version holding older lines only: an edit the
        // deleting device may not have seen, though every token in it is one it saw.
        if ledger.restored.contains(path) { clean = false }
        ledger.mustBeGone[path] = clean ? step : nil
    }

    /// Settles open conflicts as a careful user does: every line of both versions kept.
    func resolveConflicts(_ device: Int) async throws {
        let engine = devices[device].engine
        for conflict in try await engine.state.conflicts() {
            let local = read(device, conflict.path.rawValue) ?? ""
            let copy = conflict.conflictCopy.flatMap { read(device, $0.rawValue) } ?? ""
            var lines = local.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in copy.split(separator: "\n").map(String.init) where !lines.contains(line) { lines.append(line) }
            do {
                try await engine.resolve(conflict.path, .merged(Data(lines.joined(separator: "\n").utf8)))
            } catch SyncEngineError.serverMovedOn {
                continue  // another conflict copy was made; settled next time
            } catch {
                continue  // offline or a fault: settled next time
            }
        }
    }

    // MARK: files

    func url(_ device: Int, _ path: String) -> URL { devices[device].root.appendingPathComponent(path) }

    func read(_ device: Int, _ path: String) -> String? {
        (try? Data(contentsOf: url(device, path))).map { String(decoding: $0, as: UTF8.self) }
    }

    func write(_ device: Int, _ path: String, _ text: String) throws {
        let url = url(device, path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func files(_ device: Int) throws -> [String: String] {
        try TestVault(root: devices[device].root, engine: devices[device].engine).files()
    }

    func conflictCopies(_ device: Int) -> [String: String] {
        TestVault(root: devices[device].root, engine: devices[device].engine).conflictCopies()
    }

    func readerSession() async throws -> VaultSession {
        let tokens = try await server.api.login(email: user.email, password: user.password)
        return VaultSession(accessToken: tokens.accessToken, deviceID: readerID)
    }

    /// The server's current content of `path`, nil when it has none (opened with the vault's key
    /// in an encrypted vault).
    func serverContent(_ path: String) async throws -> String? {
        let session = try await readerSession()
        let keys = try vaultKeys()
        let name = try keys.map { try $0.names.encode(try VaultPath(path)).path } ?? VaultPath(path)
        let pull = try await server.api.pull(PullRequest(files: [name]), session: session)
        guard let download = pull.downloads.first else { return nil }
        let bytes = try await server.api.downloadBlob(from: download.downloadURL, session: session)
        return String(decoding: try keys.map { try FileFormat.open(bytes, with: $0.keys) } ?? bytes, as: UTF8.self)
    }
}
