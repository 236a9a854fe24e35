import Foundation
import TestSupport
import Testing

/// Two people and their roles in one vault, as they meet it: real `vaultsync` processes against a
/// real server, three accounts and four folders (issue 34).
@Suite struct SharedVaultCLITests: CLISuite {
    @Test func peopleShareAVaultWithRolesAndARemovedMemberKeepsTheirFiles() async throws {
        let ana = newFolder(), boOwn = newFolder(), bo = newFolder(), cy = newFolder()
        defer { for folder in [ana, boOwn, bo, cy] { try? FileManager.default.removeItem(at: folder) } }
        let tag = UUID().uuidString.prefix(8).lowercased()
        let (anaEmail, boEmail, cyEmail) = ("ana-\(tag)@example.com", "bo-\(tag)@example.com", "cy-\(tag)@example.com")
        try await TestServer.with { server in
            let url = server.baseURL.absoluteString
            #expect(try await vaultsync(["init", ana.path, "--server", url, "--email", anaEmail, "--create-account", "--vault", "Handbook", "--create"]).exitCode == 0)
            try write(ana, "plan.md", "# Plan\n\n## Ana\n\nfirst\n\n## Bo\n\nfirst\n")
            #expect(try await vaultsync(["sync", ana.path]).exitCode == 0)
            #expect(try await vaultsync(["init", boOwn.path, "--server", url, "--email", boEmail, "--create-account"]).exitCode == 0)

            // Ana invites Bo by email as a writer; he sees it and links a folder by OWNER/NAME.
            let unknown = try await vaultsync(["members", "invite", "nobody-\(tag)@example.com", "--role", "writer", "--vault", ana.path])
            #expect(unknown.exitCode == 1 && unknown.stderr.contains("no account on this server has the email"), "\(unknown)")
            let invited = try await vaultsync(["members", "invite", boEmail.uppercased(), "--role", "writer", "--vault", ana.path, "--json"])
            let invitation = try invited.json()
            #expect(invited.exitCode == 0 && invitation["email"] as? String == boEmail, "\(invited)")
            let waiting = try await vaultsync(["invitations", "list", "--vault", boOwn.path, "--json"]).json()["invitations"] as? [[String: Any]] ?? []
            #expect(waiting.count == 1 && waiting.first?["owner"] as? String == anaEmail && waiting.first?["role"] as? String == "writer", "\(waiting)")
            let linked = try await vaultsync(["init", bo.path, "--server", url, "--email", boEmail, "--vault", "\(anaEmail)/Handbook"])
            #expect(linked.exitCode == 0 && linked.stdout.contains("vault '\(anaEmail)/Handbook'"), "\(linked)")
            #expect(content(bo, "plan.md") == "# Plan\n\n## Ana\n\nfirst\n\n## Bo\n\nfirst\n")
            #expect(content(boOwn, "plan.md") == nil, "Bo's own vault stays apart")
            let vaultID = try #require((try await vaultsync(["vaults", "--vault", bo.path, "--json"]).json()["vaults"] as? [[String: Any]])?
                .first { $0["owner"] as? String == anaEmail }?["vault_id"] as? String).lowercased()
            let davHint = try await vaultsync(["app-password", "create", "Bo's rclone", "--vault", bo.path])
            #expect(davHint.exitCode == 0 && davHint.stdout.contains("/dav/\(vaultID)/"), "a shared vault's WebDAV address is by id: \(davHint)")

            // Edits of different parts by two people merge; history says who made which.
            try write(ana, "plan.md", "# Plan\n\n## Ana\n\nAna's edit\n\n## Bo\n\nfirst\n")
            try write(bo, "plan.md", "# Plan\n\n## Ana\n\nfirst\n\n## Bo\n\nBo's edit\n")
            #expect(try await vaultsync(["sync", ana.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", bo.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", ana.path]).exitCode == 0)
            let merged = "# Plan\n\n## Ana\n\nAna's edit\n\n## Bo\n\nBo's edit\n"
            #expect(content(ana, "plan.md") == merged && content(bo, "plan.md") == merged)
            let history = try await vaultsync(["history", "plan.md", "--vault", ana.path, "--json"]).json()["versions"] as? [[String: Any]] ?? []
            #expect(history.first?["author"] as? String == boEmail && history.last?["author"] == nil, "Bo's merge is his, Ana's first version hers: \(history)")
            let shown = try await vaultsync(["history", "plan.md", "--vault", ana.path])
            #expect(shown.stdout.contains("\(boEmail) on "), "\(shown)")
            // The same line edited by both: the second to sync keeps both versions.
            try write(ana, "plan.md", merged.replacingOccurrences(of: "Ana's edit", with: "Ana again"))
            try write(bo, "plan.md", merged.replacingOccurrences(of: "Ana's edit", with: "Bo over Ana"))
            #expect(try await vaultsync(["sync", ana.path]).exitCode == 0)
            let clash = try await vaultsync(["sync", bo.path])
            #expect(clash.stdout.contains("conflict"), "\(clash)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: bo.path).contains { $0.hasPrefix("plan.conflict-") }, "both versions are kept")

            // Cy joins with a code as a reader: reads, and nothing Cy changes reaches the vault.
            let code = try #require(try await vaultsync(["members", "invite", "--code", "--role", "reader", "--vault", ana.path, "--json"]).json()["code"] as? String)
            let joined = try await vaultsync(["init", cy.path, "--server", url, "--email", cyEmail, "--create-account", "--join", code])
            #expect(joined.exitCode == 0 && joined.stdout.contains("vault '\(anaEmail)/Handbook'"), "\(joined)")
            #expect(content(cy, "plan.md") == "# Plan\n\n## Ana\n\nAna again\n\n## Bo\n\nBo's edit\n")
            let reused = try await vaultsync(["invitations", "accept", "--code", code, "--vault", boOwn.path])
            #expect(reused.exitCode == 1 && reused.stderr.contains("answered, revoked or expired"), "a code works once: \(reused)")
            try write(cy, "cy.md", "Cy's note\n")
            let unsent = try await vaultsync(["sync", cy.path])
            #expect(unsent.exitCode == 0 && unsent.stdout.contains("you are a reader of this vault: 1 change made here stays on this device"), "\(unsent)")
            #expect(try await vaultsync(["sync", ana.path]).exitCode == 0)
            #expect(content(ana, "cy.md") == nil, "nothing written through a reader")
            let refusedInvite = try await vaultsync(["members", "invite", "--code", "--role", "reader", "--vault", cy.path])
            #expect(refusedInvite.exitCode == 1 && refusedInvite.stderr.contains("admin_only"), "\(refusedInvite)")

            // Ana makes Cy a writer: the change kept on Cy's device goes at the next sync.
            let promoted = try await vaultsync(["members", "set-role", cyEmail, "writer", "--vault", ana.path])
            #expect(promoted.exitCode == 0 && promoted.stdout.contains("is now writer"), "\(promoted)")
            #expect(try await vaultsync(["sync", cy.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", ana.path]).exitCode == 0)
            #expect(content(ana, "cy.md") == "Cy's note\n")
            let people = try await vaultsync(["members", "--vault", bo.path, "--json"]).json()
            let roles = (people["members"] as? [[String: Any]] ?? []).map { "\($0["email"] ?? "")=\($0["role"] ?? "")" }
            #expect(roles == ["\(anaEmail)=owner", "\(boEmail)=writer", "\(cyEmail)=writer"] && people["invitations"] == nil, "\(people)")

            // Bo is removed while his watcher runs: it stops at once, his files stay, his syncs are refused.
            let watcher = try CLIProcess.start("vaultsync", ["watch", bo.path, "--json", "--debounce", "0.2"], environment: environment)
            defer { watcher.send(SIGKILL) }
            try await eventually("Bo's watcher connects", explaining: { watcher.stdoutSoFar + watcher.stderrSoFar }) { WatchLog(watcher).connected }
            let removed = try await vaultsync(["members", "remove", boEmail, "--vault", ana.path])
            #expect(removed.exitCode == 0, "\(removed)")
            let ended = try await watcher.finish(timeout: .seconds(30))
            #expect(ended.exitCode == 5 && ended.stderr.contains("no longer a member") && ended.stderr.contains("you were removed"), "\(ended)")
            #expect(content(bo, "plan.md") != nil && content(bo, "cy.md") == "Cy's note\n", "his files stay")
            let after = try await vaultsync(["sync", bo.path])
            #expect(after.exitCode == 5 && after.stderr.contains("nothing in this folder was deleted"), "\(after)")

            // Cy leaves; the owner cannot.
            #expect(try await vaultsync(["members", "leave", "--vault", cy.path]).exitCode == 0)
            let left = try await vaultsync(["sync", cy.path])
            #expect(left.exitCode == 5 && left.stderr.contains("you left the vault 'Handbook'"), "\(left)")
            let ownerLeaves = try await vaultsync(["members", "leave", "--vault", ana.path])
            #expect(ownerLeaves.exitCode == 1 && ownerLeaves.stderr.contains("owner"), "\(ownerLeaves)")
        }
    }

    func content(_ folder: URL, _ path: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    func write(_ folder: URL, _ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: folder.appendingPathComponent(path))
    }
}
