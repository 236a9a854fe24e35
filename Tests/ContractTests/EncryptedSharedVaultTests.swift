import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing
import VaultCrypto

/// An end-to-end encrypted vault shared by two people (issue 34), as they meet it: real `vaultsync`
/// processes against a real `vaultsync-server` (embedded Postgres, file store, debug log), three
/// accounts and four devices. Each person opens the vault with their own passphrase; after someone
/// leaves, nothing is sent until the owner's device renews the key; after Bo is removed, the key is
/// renewed and a new file does not open with the keys Bo's device held (the test holds them and
/// tries); after Ana re-encrypts the names (`vaults rekey`), no name opens with them either, and a
/// device with an edit pending switches names without losing it; and no marker of the notes is
/// anywhere in the server's data or log.
@Suite(.serialized) struct EncryptedSharedVaultTests: CLISuite {
    static let anaPassphrase = "ana's long passphrase"
    static let boPassphrase = "bo's own long passphrase"

    @Test func eachPersonOpensItWithTheirOwnPassphraseAndARemovedMembersKeysOpenNothingNew() async throws {
        try await HeavyTests.oneAtATime {
            let data = try ServerProcess.newDataDirectory()
            let laptop = newFolder(), phone = newFolder(), boOwn = newFolder(), bo = newFolder(), cyOwn = newFolder(), cy = newFolder()
            defer { for folder in [laptop, phone, boOwn, bo, cyOwn, cy] { try? FileManager.default.removeItem(at: folder) } }
            let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let (before, boMark, after) = ("beforemark\(id)", "bomark\(id)", "aftermark\(id)")
            let (anaEmail, boEmail, cyEmail) = ("ana-\(id.prefix(8))@example.com", "bo-\(id.prefix(8))@example.com", "cy-\(id.prefix(8))@example.com")
            func run(_ arguments: [String], passphrase: String? = nil) async throws -> CLIResult {
                var environment = environment
                environment["VAULTSYNC_PASSPHRASE"] = passphrase
                return try await CLIProcess.run("vaultsync", arguments, environment: environment)
            }

            let server = try await ServerProcess.start(dataDirectory: data, arguments: ["--log-level", "debug"])
            let ended: CLIResult
            do {
                let url = server.baseURL.absoluteString
                let plan = "# Plan\n\n## Ana\n\n\(before)\n\n## Bo\n\nfirst\n"
                try FileManager.default.createDirectory(at: laptop, withIntermediateDirectories: true)
                try Data(plan.utf8).write(to: laptop.appendingPathComponent("plan.md"))
                let created = try await run(["init", laptop.path, "--server", url, "--email", anaEmail, "--create-account", "--encrypt"], passphrase: Self.anaPassphrase)
                #expect(created.exitCode == 0, "\(created)")
                #expect(try await run(["init", boOwn.path, "--server", url, "--email", boEmail, "--create-account"]).exitCode == 0)

                // Nobody can be given the key before they have sharing keys; then each makes theirs.
                let early = try await run(["members", "invite", boEmail, "--role", "writer", "--vault", laptop.path])
                #expect(early.exitCode == 1 && early.stderr.contains("'vaultsync keys create'"), "\(early)")
                #expect(try await run(["keys", "create", "--vault", laptop.path], passphrase: Self.anaPassphrase).exitCode == 0)
                let again = try await run(["keys", "create", "--vault", laptop.path], passphrase: Self.anaPassphrase)
                #expect(again.exitCode == 1 && again.stderr.contains("has sharing keys already"), "\(again)")
                let boKeys = try await run(["keys", "create", "--vault", boOwn.path, "--json"], passphrase: "bo's first passphrase")
                let boNumber = try #require(try boKeys.json()["safety_number"] as? String, "\(boKeys)")
                let anaNumber = try #require(try await run(["keys", "show", "--vault", laptop.path, "--json"]).json()["safety_number"] as? String)
                // Bo reseals his keys under another passphrase: the old one opens nothing any more.
                var resealing = environment
                resealing["VAULTSYNC_NEW_PASSPHRASE"] = Self.boPassphrase
                let changed = try await CLIProcess.run("vaultsync", ["keys", "change-passphrase", "--vault", boOwn.path], environment: resealing)
                #expect(changed.exitCode == 0, "\(changed)")
                #expect(try await run(["keys", "unlock", "--vault", boOwn.path], passphrase: "bo's first passphrase").exitCode == 1)
                #expect(boNumber.count == 35 && boNumber != anaNumber)

                // Ana invites Bo pinning the number he read out to her; a wrong one sends nothing,
                // and a code names nobody to wrap the key to.
                let wrongNumber = String(boNumber.reversed())
                let mistaken = try await run(["members", "invite", boEmail, "--role", "writer", "--safety-number", wrongNumber, "--vault", laptop.path])
                #expect(mistaken.exitCode == 1 && mistaken.stderr.contains("not the one you compared"), "\(mistaken)")
                // Only that they differ: the number the server holds is not shown to be copied.
                #expect(!mistaken.stderr.contains(boNumber) && !mistaken.stdout.contains(boNumber), "\(mistaken)")
                let byCode = try await run(["members", "invite", "--code", "--role", "writer", "--vault", laptop.path])
                #expect(byCode.exitCode == 1 && byCode.stderr.contains("invite them by their email"), "\(byCode)")
                let invited = try await run(["members", "invite", boEmail, "--role", "writer", "--safety-number", boNumber, "--vault", laptop.path])
                #expect(invited.exitCode == 0, "\(invited)")

                // Bo links the vault with his own passphrase: the note arrives decrypted.
                let linked = try await run(["init", bo.path, "--server", url, "--email", boEmail, "--vault", "\(anaEmail)/default"], passphrase: Self.boPassphrase)
                #expect(linked.exitCode == 0 && linked.stdout.contains("(end-to-end encrypted)"), "\(linked)")
                #expect(try String(contentsOf: bo.appendingPathComponent("plan.md"), encoding: .utf8) == plan)
                let people = try await run(["members", "--vault", bo.path, "--json"]).json()["members"] as? [[String: Any]] ?? []
                #expect(Set(people.compactMap { $0["safety_number"] as? String }) == [anaNumber, boNumber], "\(people)")
                #expect(people.allSatisfy { $0["number_changed"] as? Bool == false })

                // Edits of different parts by the two people merge, through ciphertext.
                let anaEdit = plan.replacingOccurrences(of: before, with: "\(before) by Ana")
                try Data(anaEdit.utf8).write(to: laptop.appendingPathComponent("plan.md"))
                try Data(plan.replacingOccurrences(of: "first", with: boMark).utf8).write(to: bo.appendingPathComponent("plan.md"))
                for folder in [laptop, bo, laptop] { #expect(try await run(["sync", folder.path]).exitCode == 0) }
                let merged = anaEdit.replacingOccurrences(of: "first", with: boMark)
                #expect(try String(contentsOf: laptop.appendingPathComponent("plan.md"), encoding: .utf8) == merged)
                #expect(try String(contentsOf: bo.appendingPathComponent("plan.md"), encoding: .utf8) == merged)

                // Ana's second device, with her passphrase.
                #expect(try await run(["init", phone.path, "--server", url, "--email", anaEmail], passphrase: Self.anaPassphrase).exitCode == 0)

                // Cy joins and leaves. Until Ana's device renews the key, Bo's device sends nothing
                // (it would be sealed under a key Cy holds); then it does, under generation 2.
                #expect(try await run(["init", cyOwn.path, "--server", url, "--email", cyEmail, "--create-account"]).exitCode == 0)
                #expect(try await run(["keys", "create", "--vault", cyOwn.path], passphrase: Self.boPassphrase).exitCode == 0)
                #expect(try await run(["members", "invite", cyEmail, "--role", "writer", "--vault", bo.path]).exitCode == 1, "a writer invites nobody")
                #expect(try await run(["members", "invite", cyEmail, "--role", "writer", "--vault", laptop.path]).exitCode == 0)
                #expect(try await run(["init", cy.path, "--server", url, "--email", cyEmail, "--vault", "\(anaEmail)/default"], passphrase: Self.boPassphrase).exitCode == 0)
                #expect(try await run(["members", "leave", "--vault", cy.path]).exitCode == 0)
                try Data("# Waits\n".utf8).write(to: bo.appendingPathComponent("waits.md"))
                let held = try await run(["sync", bo.path])
                #expect(held.exitCode == 0 && held.stdout.contains("its key is not renewed yet: 1 change made here waits"), "\(held)")
                let renewing = try await run(["sync", laptop.path])
                #expect(renewing.exitCode == 0 && renewing.stdout.contains("its key was renewed (generation 2)"), "\(renewing)")
                #expect(try await run(["sync", bo.path]).stdout.contains("pushed 1"))
                #expect(try await run(["sync", laptop.path]).exitCode == 0)
                #expect(try String(contentsOf: laptop.appendingPathComponent("waits.md"), encoding: .utf8) == "# Waits\n")

                // Ana removes Bo; the key is renewed at once. What Bo's device held is kept here.
                let boHeld = try #require(try CredentialStore(stateFolder: bo.appendingPathComponent(".vaultsync")).load()?.vaultKeyring)
                #expect(boHeld.generations.count == 2)
                let removed = try await run(["members", "remove", boEmail, "--vault", laptop.path])
                #expect(removed.exitCode == 0 && removed.stdout.contains("renewed (generation 3)"), "\(removed)")
                try Data("# After\n\n\(after)\n".utf8).write(to: laptop.appendingPathComponent("after.md"))
                #expect(try await run(["sync", laptop.path]).exitCode == 0)
                // An export before Ana's phone synced: it takes generation 3 first, and opens the new file.
                let archive = phone.deletingLastPathComponent().appendingPathComponent("\(phone.lastPathComponent)-export.zip")
                defer { try? FileManager.default.removeItem(at: archive) }
                let exported = try await run(["export", phone.path, "--out", archive.path])
                #expect(exported.exitCode == 0 && FileManager.default.fileExists(atPath: archive.path), "\(exported)")
                let phoneSync = try await run(["sync", phone.path])
                #expect(phoneSync.exitCode == 0, "Ana's other device takes generations 2 and 3 through her sharing keys: \(phoneSync)")
                #expect(try String(contentsOf: phone.appendingPathComponent("after.md"), encoding: .utf8) == "# After\n\n\(after)\n")
                let boSync = try await run(["sync", bo.path])
                #expect(boSync.exitCode == 5 && FileManager.default.fileExists(atPath: bo.appendingPathComponent("plan.md").path), "\(boSync)")

                // The server's copy of after.md, as Bo (or anyone holding his old keys and the
                // server's bytes) would get it: the name opens (until a rekey, names stay under
                // generation 1, as docs/sharing.md says), the contents do not; Ana's keys open them.
                let api = SyncAPI(baseURL: server.baseURL)
                let tokens = try await api.login(email: anaEmail, password: Self.password)
                let device = try await api.registerDevice(RegisterDeviceRequest(deviceName: "auditor", platform: "linux"), accessToken: tokens.accessToken)
                let session = VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID)
                let state = try await api.state(session)
                #expect(state.keyGeneration == 3 && state.keyRotationDue == nil, "\(state.keyGeneration as Any)")
                let names = NameCipher(vaultKey: boHeld.names)
                let wanted = try VaultPath("after.md")
                let afterPath = try #require(state.files.first { (try? names.decrypt($0.path)) == wanted }?.path)
                let pulled = try await api.pull(PullRequest(files: [afterPath], inlineMaxBytes: 65_536), session: session)
                let sealed = try #require(pulled.downloads.first?.content)
                #expect(throws: VaultCryptoError.self, "Bo's old keys do not open a file written after his removal") { try FileFormat.open(sealed, with: boHeld) }
                let anaHeld = try #require(try CredentialStore(stateFolder: laptop.appendingPathComponent(".vaultsync")).load()?.vaultKeyring)
                #expect(anaHeld.generations.count == 3 && anaHeld.names.id == boHeld.names.id)
                #expect(try FileFormat.open(sealed, with: anaHeld) == Data("# After\n\n\(after)\n".utf8))

                // Ana's phone edits the plan, not yet synced, when her laptop re-encrypts the names.
                let phonePlan = merged + "\nfrom the phone\n"
                try Data(phonePlan.utf8).write(to: phone.appendingPathComponent("plan.md"))
                let rekeyed = try await run(["vaults", "rekey", "--vault", laptop.path, "--json"])
                #expect(rekeyed.exitCode == 0, "\(rekeyed)")
                let outcome = try rekeyed.json()
                #expect(outcome["names_generation"] as? Int == 4 && outcome["renamed"] as? Int == 3, "\(outcome)")
                // A write under the old names (one that names no generation) is refused whole.
                let stale = PushFile(path: afterPath, contentHash: ContentHasher.hash(sealed), sizeBytes: Int64(sealed.count), baseVersion: nil, pathKey: String(repeating: "a", count: 64))
                for write in ["push", "delete"] {
                    do {
                        if write == "push" {
                            _ = try await api.push(PushRequest(files: [stale]), session: session)
                        } else {
                            _ = try await api.delete(DeleteRequest(files: [DeleteFile(path: afterPath, baseVersion: 1)]), session: session)
                        }
                        Issue.record("a \(write) under the old names went through")
                    } catch let error as SyncAPIError {
                        #expect(error.code == .namesChanged && error.status == 409, "\(write): \(error)")
                    }
                }
                // The phone switches names at its next sync: its edit goes up, nothing is deleted
                // or copied as a conflict, and the laptop gets it.
                let switched = try await run(["sync", phone.path, "--json"])
                let report = try switched.json()
                #expect(switched.exitCode == 0 && (report["deleted_locally"] as? [String] ?? []).isEmpty && (report["conflicts"] as? [String] ?? []).isEmpty, "\(switched)")
                #expect(try await run(["sync", laptop.path]).exitCode == 0)
                #expect(try String(contentsOf: laptop.appendingPathComponent("plan.md"), encoding: .utf8) == phonePlan)
                for folder in [laptop, phone] {
                    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
                    #expect(names == ["after.md", "plan.md", "waits.md"], "\(folder.lastPathComponent): \(names)")
                }
                // Undoing the last hour's deletions brings back no old name: the rekey's tombstones
                // are not deletions anybody made.
                let undeleted = try await run(["restore", "--deleted-since", "1h", "--vault", laptop.path, "--json"])
                let restoredPaths = try undeleted.json()["restored"] as? [Any]
                #expect(undeleted.exitCode == 0 && restoredPaths?.isEmpty == true, "\(undeleted)")
                // Now no name on the server opens with any key Bo held; Ana's newest opens them all.
                var renamedSession = session
                renamedSession.namesGeneration = 4
                let renamedState = try await api.state(renamedSession)
                #expect(renamedState.namesGeneration == 4 && renamedState.files.count == 3, "\(renamedState.files.count) files")
                let anaNow = try #require(try CredentialStore(stateFolder: laptop.appendingPathComponent(".vaultsync")).load()?.vaultKeyring)
                let newNames = NameCipher(vaultKey: try #require(anaNow.generation(4)))
                for file in renamedState.files {
                    for key in boHeld.generations { #expect(throws: VaultCryptoError.self) { try NameCipher(vaultKey: key).decrypt(file.path) } }
                    #expect(throws: Never.self) { try newNames.decrypt(file.path) }
                }
                // waits.md is still sealed under generation 2, which Bo held: a rekey with
                // --contents seals every file again under a new generation. The phone's edit of it
                // meanwhile survives; every device takes the new bytes.
                func contents(_ state: VaultStateResponse, _ session: VaultSession) async throws -> [Data] {
                    let pulled = try await api.pull(PullRequest(files: state.files.map(\.path), inlineMaxBytes: 65_536), session: session)
                    return try pulled.downloads.map { try #require($0.content) }
                }
                #expect(try await contents(renamedState, renamedSession).contains { (try? FileFormat.open($0, with: boHeld)) != nil }, "waits.md opens with Bo's keys")
                let phoneWaits = "# Waits\n\nedited on the phone\n"
                try Data(phoneWaits.utf8).write(to: phone.appendingPathComponent("waits.md"))
                let resealed = try await run(["vaults", "rekey", "--contents", "--vault", laptop.path, "--json"])
                let resealedOutcome = try resealed.json()
                #expect(resealed.exitCode == 0 && resealedOutcome["names_generation"] as? Int == 5 && resealedOutcome["resealed"] as? Bool == true, "\(resealed)")
                let phoneResealed = try await run(["sync", phone.path, "--json"])
                let phoneReport = try phoneResealed.json()
                #expect(phoneResealed.exitCode == 0 && (phoneReport["conflicts"] as? [String] ?? []).isEmpty && (phoneReport["deleted_locally"] as? [String] ?? []).isEmpty, "\(phoneResealed)")
                #expect(try await run(["sync", laptop.path]).exitCode == 0)
                #expect(try String(contentsOf: laptop.appendingPathComponent("waits.md"), encoding: .utf8) == phoneWaits)
                #expect(try String(contentsOf: phone.appendingPathComponent("plan.md"), encoding: .utf8) == phonePlan)
                renamedSession.namesGeneration = 5
                let resealedState = try await api.state(renamedSession)
                let anaLast = try #require(try CredentialStore(stateFolder: laptop.appendingPathComponent(".vaultsync")).load()?.vaultKeyring)
                let sealedNow = try await contents(resealedState, renamedSession)
                #expect(sealedNow.count == 3)
                for data in sealedNow {
                    #expect(throws: VaultCryptoError.self, "no current file opens with Bo's keys") { try FileFormat.open(data, with: boHeld) }
                    #expect(throws: Never.self) { try FileFormat.open(data, with: anaLast) }
                }
            } catch {
                _ = try? await server.stop()
                throw error
            }
            ended = try await server.stop()  // the cluster checkpoints: everything is on disk

            // No marker, nor its base64, in the server's data folder or its log.
            let log = ended.stdout + ended.stderr
            #expect(log.contains("/vaults/"), "the debug log records requests: \(log.suffix(2000))")
            let needles = [before, boMark, after].flatMap { [Data($0.utf8)] + EncryptedVaultLeakTests.base64Cores(of: $0) }
            var scanned = 0
            for file in EncryptedVaultLeakTests.regularFiles(under: data) {
                guard let bytes = try? Data(contentsOf: file, options: .alwaysMapped) else { continue }
                scanned += 1
                for needle in needles where bytes.range(of: needle) != nil { Issue.record("\(file.path) holds '\(String(decoding: needle, as: UTF8.self))'") }
            }
            for needle in needles where log.utf8.contains(needle) { Issue.record("the server's log holds '\(String(decoding: needle, as: UTF8.self))'") }
            #expect(scanned > 100, "the cluster and the blobs were read: \(scanned) files")
        }
    }
}
