public import SeededRandom

/// One step of a simulated history. Every step that writes carries its own token (unique in the
/// history), so the invariants can follow each edit to wherever it ends up.
public enum SimOperation: Equatable, Sendable, CustomStringConvertible {
    /// How a device edits a note.
    public enum Edit: Equatable, Sendable {
        /// Appends a line at the end of the body.
        case append
        /// Replaces the device's own body line (no other device edits it).
        case ownLine
        /// Replaces the line every device edits (a same-line edit when two do it concurrently).
        case sharedLine
        /// Sets the device's own frontmatter field.
        case ownField
        /// Sets the `status` field every device sets (a same-field edit).
        case sharedField
    }

    case edit(device: Int, path: String, Edit, token: String)
    /// Writes an attachment (above the inline limit, so it travels as a blob) holding the token.
    case attach(device: Int, path: String, token: String)
    case delete(device: Int, path: String)
    case rename(device: Int, from: String, to: String)
    case sync(device: Int, fault: TransportFault?)
    /// A sync the device dies in, before its `atStep`-th write to the disk (a file staged, renamed,
    /// removed or flushed, or a `sync.db` commit; counted from 1): the engine is dropped and the
    /// vault opened again from its folder and `sync.db`. A `powerCut` also undoes the writes that
    /// were not durable yet (``SimDisk``). A sync with fewer steps ends normally.
    case crash(device: Int, atStep: Int, powerCut: Bool)
    case offline(device: Int)
    case online(device: Int)
    /// Stops one server instance gracefully and starts it again (the second instance first, then
    /// they alternate); the other goes on serving.
    case restartServer
    /// Moves the clock past the tombstone retention and runs the purge job: devices whose cursor
    /// is older than a purged deletion get `cursor_expired`.
    case purge
    /// The user settles the device's open conflicts by keeping the lines of both versions.
    case resolve(device: Int)
    /// Time passes on the simulation's clock: the watchers sync as their schedule says.
    case wait(seconds: Int)
    /// A person's WebDAV client (``SimDAV``; the owner's unless `by` says) reads a note and keeps
    /// it, with its ETag.
    case davRead(path: String, by: SimPerson = .owner)
    /// The WebDAV client writes its edit of a note back: of the copy it kept (then forgotten), or
    /// of one it reads now. With `ifMatch` only over the version it read (a refusal writes
    /// nothing); without, over whatever is current then, which stays in the server's history.
    case davWrite(path: String, token: String, ifMatch: Bool, by: SimPerson = .owner)
    /// The owner restores, from the web app's history page of a note, the version before the
    /// current one (a plain vault's; an encrypted vault's pages show no names).
    case webRestore(path: String)
    /// The owner sets the vault back as it was `stepsBack` steps ago (`vaultsync restore --as-of`,
    /// through the API; a plain vault's).
    case restoreAsOf(stepsBack: Int)
    /// The device re-encrypts the vault's names under a new key generation (`vaultsync vaults
    /// rekey`), with its files' contents sealed again when `contents` (encrypted vaults only).
    case rekey(device: Int, contents: Bool)

    public var description: String {
        switch self {
        case .edit(let d, let path, let edit, let token): "d\(d) edit \(path) \(edit) \(token)"
        case .attach(let d, let path, let token): "d\(d) attach \(path) \(token)"
        case .delete(let d, let path): "d\(d) delete \(path)"
        case .rename(let d, let from, let to): "d\(d) rename \(from) → \(to)"
        case .sync(let d, let fault): "d\(d) sync" + (fault.map { " [\($0)]" } ?? "")
        case .crash(let d, let step, let powerCut): "d\(d) sync [\(powerCut ? "power cut" : "crash") at disk step \(step)]"
        case .offline(let d): "d\(d) offline"
        case .online(let d): "d\(d) online"
        case .restartServer: "restart a server instance"
        case .purge: "purge (clock +2 h)"
        case .resolve(let d): "d\(d) resolve conflicts"
        case .wait(let seconds): "wait \(seconds) s"
        case .rekey(let d, let contents): "d\(d) rekeys the vault's names" + (contents ? " and contents" : "")
        case .webRestore(let path): "web app: restore the version before the current one of \(path)"
        case .restoreAsOf(let back): "restore the vault as it was \(back) steps ago"
        case .davRead(let path, let person): "WebDAV read \(path)" + person.client
        case .davWrite(let path, let token, let ifMatch, let person): "WebDAV write \(path) \(token)" + (ifMatch ? " (If-Match)" : " (blind)") + person.client
        }
    }
}

/// Whose WebDAV client acts in a vault three people share: each signs in with their own app
/// password (the owner reaches the vault by its name, the others by its id).
public enum SimPerson: String, Equatable, Sendable {
    case owner, writer, reader

    /// How a step says whose client it is (the owner's goes unsaid).
    var client: String { self == .owner ? "" : " by the \(rawValue)'s client" }
}

/// A seeded history: how many devices, whether edits may collide, and the steps.
public struct SimScenario: Sendable, CustomStringConvertible {
    public let seed: UInt64
    public let devices: Int
    /// When false, devices only edit their own lines and fields and create names of their own:
    /// the merge rules resolve everything, so no conflict may ever appear.
    public let collisions: Bool
    /// Devices that run `vaultsync watch`: they sync by themselves, as its schedule decides.
    public let watching: Set<Int>
    /// Devices of a second person, a writer of the first person's vault (the vault is shared).
    public var writers: Set<Int> = []
    /// Devices of a third person, a reader of it: they edit notes of their own, which must never
    /// reach the server or another device, and take every change the others make.
    public var readers: Set<Int> = []
    /// Devices that leave `Journal/` out (`vaultsync folders skip Journal`): the files they hold
    /// converge with the others', nothing of `Journal/` reaches them, and what they write there
    /// stays on them (kept, not synced), never deleting anything on the server.
    public var selective: Set<Int> = []
    /// The vault is end-to-end encrypted: the server holds only sealed names and bytes.
    public var encrypted = false
    public var operations: [SimOperation]

    /// Whose vault a run's histories happen in.
    public enum Kind: String, Sendable, CaseIterable {
        /// One person's vault.
        case plain
        /// A vault three people share (``generateShared(seed:steps:)``).
        case shared
        /// One person's end-to-end encrypted vault: the same histories as `plain`, with rekeys where
        /// those have the WebDAV client, and without the web app's steps.
        case encrypted
        /// An end-to-end encrypted vault three people share: `shared`'s histories as `encrypted`
        /// changes `plain`'s (the vault's key given to each member under their sharing keys).
        case sharedEncrypted = "shared-encrypted"
    }

    /// The history of `seed` in a vault of `kind`.
    public static func generate(seed: UInt64, kind: Kind) -> SimScenario {
        switch kind {
        case .plain: generate(seed: seed)
        case .shared: generateShared(seed: seed)
        case .encrypted: encrypting(generate(seed: seed))
        case .sharedEncrypted: encrypting(generateShared(seed: seed))
        }
    }

    /// `plain`'s history in an end-to-end encrypted vault. WebDAV serves plain vaults only: where a
    /// WebDAV client acts in a plain vault, a device rekeys this one (its names, and with a careful
    /// client's write its contents too); the web app shows an encrypted vault's files to nobody.
    static func encrypting(_ plain: SimScenario) -> SimScenario {
        var scenario = plain
        scenario.encrypted = true
        scenario.operations = scenario.operations.compactMap { operation in
            switch operation {
            case .davRead(let path, _): .rekey(device: path.count % scenario.devices, contents: false)
            case .davWrite(_, let token, let ifMatch, _): .rekey(device: token.count % scenario.devices, contents: ifMatch)
            case .webRestore, .restoreAsOf: nil
            default: operation
            }
        }
        return scenario
    }

    public init(seed: UInt64, devices: Int, collisions: Bool, watching: Set<Int> = [], writers: Set<Int> = [], readers: Set<Int> = [], operations: [SimOperation]) {
        self.seed = seed
        self.devices = devices
        self.collisions = collisions
        self.watching = watching
        self.writers = writers
        self.readers = readers
        self.operations = operations
    }

    public var description: String {
        "seed \(seed): \(devices) devices (watching: \(watching.sorted()), another person's writers: \(writers.sorted()), readers: \(readers.sorted()), leaving Journal/ out: \(selective.sorted()))\(encrypted ? ", encrypted vault" : ""), "
            + "\(collisions ? "colliding" : "non-colliding") edits, \(operations.count) steps\n"
            + operations.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
    }

    static let sharedNotes = ["notes/plan.md", "notes/log.md", "Journal/caf\u{E9}.md", "inbox.md"]
    static let sharedAttachments = ["files/scan.pdf"]

    public static func generate(seed: UInt64, steps: Int = 40) -> SimScenario {
        var rng = SplitMix(seed: seed)
        let devices = Int.random(in: 3...5, using: &rng)
        let collisions = Bool.random(using: &rng)
        let watching = Set((0..<devices).filter { _ in Bool.random(using: &rng) })
        var operations: [SimOperation] = []
        var offline: Set<Int> = []
        func own(_ device: Int, _ stem: String) -> String { "d\(device)/\(stem)" }
        for index in 0..<steps {
            let token = "k\(index)x"
            let device = Int.random(in: 0..<devices, using: &rng)
            let note = collisions || Bool.random(using: &rng)
                ? sharedNotes.randomElement(using: &rng)! : own(device, "n\(Int.random(in: 0..<2, using: &rng)).md")
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30:
                let edits: [SimOperation.Edit] = collisions ? [.append, .ownLine, .sharedLine, .ownField, .sharedField] : [.ownLine, .ownField]
                operations.append(.edit(device: device, path: note, edits.randomElement(using: &rng)!, token: token))
            case 30..<36:
                let path = collisions ? (sharedAttachments + [own(device, "a.bin")]).randomElement(using: &rng)! : own(device, "a.bin")
                operations.append(.attach(device: device, path: path, token: token))
            case 36..<42:
                operations.append(.delete(device: device, path: note))
            case 42..<47:
                // The target is new to every device unless edits may collide.
                let target = collisions ? sharedNotes.randomElement(using: &rng)! : own(device, "moved-\(index).md")
                operations.append(.rename(device: device, from: note, to: target))
            case 47..<64:
                operations.append(.sync(device: device, fault: randomFault(&rng)))
            case 64..<65:
                operations.append(.webRestore(path: note))
            case 65..<66:
                operations.append(.restoreAsOf(stepsBack: Int.random(in: 1...12, using: &rng)))
            case 66..<70:
                // The WebDAV client edits shared notes, or (when edits do not collide) notes of its own.
                let path = collisions || Bool.random(using: &rng) ? sharedNotes.randomElement(using: &rng)! : "dav/n\(Int.random(in: 0..<2, using: &rng)).md"
                operations.append(Bool.random(using: &rng) ? .davRead(path: path) : .davWrite(path: path, token: token, ifMatch: Bool.random(using: &rng)))
            case 70..<76:
                operations.append(.crash(device: device, atStep: Int.random(in: 1...30, using: &rng), powerCut: Bool.random(using: &rng)))
            case 76..<82: operations.append(.wait(seconds: [1, 2, 30, 130].randomElement(using: &rng)!))
            case 82..<87:
                if offline.contains(device) {
                    offline.remove(device)
                    operations.append(.online(device: device))
                } else {
                    offline.insert(device)
                    operations.append(.offline(device: device))
                }
            case 87..<90: operations.append(.restartServer)
            case 90..<93: operations.append(.purge)
            default: operations.append(.resolve(device: device))
            }
        }
        var scenario = SimScenario(seed: seed, devices: devices, collisions: collisions, watching: watching, operations: operations)
        // Every third history has a device that leaves a folder out (decided by the seed, so the
        // histories of earlier runs stay as they were).
        if seed % 3 == 1 { scenario.selective = [devices - 1] }
        return scenario
    }

    /// ``generate(seed:steps:)``'s history in a vault shared by three people: the last device is
    /// a reader's (its edits go to notes of its own; it deletes and renames nothing), the one
    /// before it a writer's, the rest the owner's. The WebDAV client's steps are each person's in
    /// turn, at random (a reader's writes are refused).
    public static func generateShared(seed: UInt64, steps: Int = 40) -> SimScenario {
        var scenario = generate(seed: seed, steps: steps)
        scenario.selective = []
        let reader = scenario.devices - 1
        scenario.readers = [reader]
        scenario.writers = [reader - 1]
        scenario.operations = scenario.operations.map { operation in
            switch operation {
            case .edit(reader, let path, let edit, let token):
                let own = path.hasPrefix("d\(reader)/") ? path : "d\(reader)/n\(path.count % 2).md"
                return .edit(device: reader, path: own, [.sharedLine, .sharedField].contains(edit) ? .ownLine : edit, token: token)
            case .attach(reader, _, let token): return .attach(device: reader, path: "d\(reader)/a.bin", token: token)
            case .delete(reader, _), .rename(reader, _, _): return .sync(device: reader, fault: nil)
            default: return operation
            }
        }
        var people = SplitMix(seed: seed &+ 0xDA5)  // apart from the history's own draws
        let persons: [SimPerson] = [.owner, .writer, .reader]
        for (index, operation) in scenario.operations.enumerated() {
            switch operation {
            case .davRead(let path, _): scenario.operations[index] = .davRead(path: path, by: persons.randomElement(using: &people)!)
            case .davWrite(let path, let token, let ifMatch, _):
                scenario.operations[index] = .davWrite(path: path, token: token, ifMatch: ifMatch, by: persons.randomElement(using: &people)!)
            default: break
            }
        }
        return scenario
    }

    static func randomFault(_ rng: inout SplitMix) -> TransportFault? {
        let at = Int.random(in: 0..<6, using: &rng)
        switch Int.random(in: 0..<16, using: &rng) {
        case 0: return .lostBefore(at: at)
        case 1: return .lostAfter(at: at)
        case 2: return .timeout(at: at)
        case 3: return .status(at: at, [500, 502, 503].randomElement(using: &rng)!)
        case 4: return .truncated(at: at)
        case 5: return .corrupted(at: at)
        case 6: return .crash(at: at, afterServer: Bool.random(using: &rng))
        default: return nil
        }
    }
}
