import Foundation
import SyncServer
import TestSupport
import Testing

/// The account commands as a user and an operator meet them: real `vaultsync` and
/// `vaultsync-server` processes against a real server and Postgres.
@Suite struct AccountCLITests: CLISuite {
    @Test func passwordChangeAccountDeletionAndTheOperatorsUserCommands() async throws {
        let laptop = newFolder(), phone = newFolder(), other = newFolder()
        defer { for folder in [laptop, phone, other] { try? FileManager.default.removeItem(at: folder) } }
        let email = "account-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let otherEmail = "other-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let admin = ["--database-url", server.databaseURL, "--data-dir", server.dataDirectory.path]
            let url = server.baseURL.absoluteString
            for (folder, name, address, create) in [(laptop, "laptop", email, true), (phone, "phone", email, false), (other, "other", otherEmail, true)] {
                let linked = try await vaultsync(["init", folder.path, "--server", url, "--email", address, "--device-name", name] + (create ? ["--create-account"] : []))
                #expect(linked.exitCode == 0, "\(linked)")
            }
            try Data("# mine\n".utf8).write(to: laptop.appendingPathComponent("mine.md"))
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)

            // A password change signs the phone out; it signs in with the new password.
            let changed = try await CLIProcess.run("vaultsync", ["account", "password", laptop.path, "--password-stdin"], stdin: "\(Self.password)\nan even better one\n")
            #expect(changed.exitCode == 0 && changed.stdout.contains("other devices were signed out"), "\(changed)")
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0, "the laptop's session goes on")
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 4)
            let back = try await CLIProcess.run("vaultsync", ["login", phone.path], environment: ["VAULTSYNC_PASSWORD": "an even better one"])
            #expect(back.exitCode == 0, "\(back)")

            // The operator's view.
            let listed = try await CLIProcess.run("vaultsync-server", ["user", "list", "--json"] + admin)
            #expect(listed.exitCode == 0, "\(listed)")
            let users = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            let mine = try #require(users.first { $0["email"] as? String == email })
            #expect(mine["devices"] as? Int == 2 && mine["files"] as? Int == 1, "\(mine)")
            let reset = try await CLIProcess.run("vaultsync-server", ["user", "reset-password", otherEmail] + admin, environment: ["VAULTSYNC_NEW_PASSWORD": "set by the operator"])
            #expect(reset.exitCode == 0, "\(reset)")
            #expect(try await vaultsync(["sync", other.path]).exitCode == 4, "every device of theirs was signed out")
            let short = try await CLIProcess.run("vaultsync-server", ["user", "reset-password", otherEmail] + admin, environment: ["VAULTSYNC_NEW_PASSWORD": "short"])
            #expect(short.exitCode == 1 && short.stderr.contains("at least 8"), "\(short)")
            let unsure = try await CLIProcess.run("vaultsync-server", ["user", "delete", otherEmail] + admin)
            #expect(unsure.exitCode == 1 && unsure.stderr.contains("without --yes"), "\(unsure)")
            let removed = try await CLIProcess.run("vaultsync-server", ["user", "delete", otherEmail, "--yes"] + admin)
            #expect(removed.exitCode == 0 && removed.stdout.contains("\(otherEmail) deleted"), "\(removed)")
            let nobody = try await CLIProcess.run("vaultsync-server", ["user", "delete", otherEmail, "--yes"] + admin)
            #expect(nobody.exitCode == 1 && nobody.stderr.contains("no user with email"), "\(nobody)")

            // The user deletes their own account: asked first, then gone; the folder's files stay.
            let unconfirmed = try await CLIProcess.run("vaultsync", ["account", "delete", laptop.path], environment: ["VAULTSYNC_PASSWORD": "an even better one"])
            #expect(unconfirmed.exitCode == 1 && unconfirmed.stderr.contains("nothing was deleted"), "\(unconfirmed)")
            #expect(unconfirmed.stderr.contains("'vaultsync export \(laptop.path) --out notes.zip'"), "the refusal says how to keep a copy: \(unconfirmed)")
            // On a terminal (a pseudo-terminal from script(1)) it asks, saying the same, and takes only 'delete'.
            let command = "\(try CLIProcess.executable("vaultsync").path) account delete \(laptop.path)"
            let asked = try await CLIProcess.run(
                "/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["VAULTSYNC_PASSWORD": "an even better one"], stdin: "keep it\n")
            #expect(asked.exitCode == 1 && asked.stdout.contains("'vaultsync export \(laptop.path) --out notes.zip'"), "\(asked)")
            #expect(asked.stdout.contains("Type 'delete' to go on") && asked.stdout.contains("not confirmed; nothing was deleted"), "\(asked)")
            let wrong = try await vaultsync(["account", "delete", laptop.path, "--yes"])
            #expect(wrong.exitCode == 1 && wrong.stderr.contains("password"), "the old password no longer works: \(wrong)")
            let deleted = try await CLIProcess.run("vaultsync", ["account", "delete", laptop.path, "--yes", "--json"], environment: ["VAULTSYNC_PASSWORD": "an even better one"])
            #expect(deleted.exitCode == 0, "\(deleted)")
            let summary = try deleted.json()
            #expect(summary["vaults"] as? Int == 1 && summary["files"] as? Int == 1 && summary["devices"] as? Int == 2, "\(summary)")
            #expect(try String(contentsOf: laptop.appendingPathComponent("mine.md"), encoding: .utf8) == "# mine\n")
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 4, "signed out")
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 4, "the other device is refused")
            let after = try await CLIProcess.run("vaultsync-server", ["user", "list", "--json"] + admin)
            #expect(after.exitCode == 0 && !after.stdout.contains(email) && !after.stdout.contains(otherEmail), "\(after)")
        }
    }

    /// Passwords typed at a terminal: a new one is asked twice, and two that differ change nothing.
    @Test func aNewPasswordTypedAtATerminalIsAskedTwice() async throws {
        let laptop = newFolder()
        defer { try? FileManager.default.removeItem(at: laptop) }
        let email = "typed-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let linked = try await vaultsync(["init", laptop.path, "--server", server.baseURL.absoluteString, "--email", email, "--create-account"])
            #expect(linked.exitCode == 0, "\(linked)")
            let mistyped = try await TerminalRun.run(
                "vaultsync", ["account", "password", laptop.path],
                replies: [("New password: ", "a brand new password"), ("The same new password again: ", "a brand new passwrod")], environment: environment)
            #expect(mistyped.exitCode == 64 && mistyped.screen.contains("the two new passwords differ; nothing was changed"), "\(mistyped)")
            let changed = try await TerminalRun.run(
                "vaultsync", ["account", "password", laptop.path],
                replies: [("New password: ", "a brand new password"), ("The same new password again: ", "a brand new password")], environment: environment)
            #expect(changed.exitCode == 0 && changed.screen.contains("password changed"), "\(changed)")
            #expect(!changed.screen.contains("a brand new password"), "a typed secret is not echoed")
            let login = try await TerminalRun.run("vaultsync", ["login", laptop.path], replies: [("Password: ", "a brand new password")], environment: ["VAULTSYNC_PASSWORD": ""])
            #expect(login.exitCode == 0, "the new password signs in: \(login)")
        }
    }

    /// An operator disables and enables an account and marks another an operator; on a server
    /// that takes no sign-ups a person joins with an invitation code an operator made in the web app.
    @Test func anOperatorDisablesEnablesAndInvites() async throws {
        let laptop = newFolder(), invited = newFolder()
        defer { for folder in [laptop, invited] { try? FileManager.default.removeItem(at: folder) } }
        let email = "disabled-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let operatorEmail = "operator-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with(configure: { $0.allowSignup = false }) { server in
            let admin = ["--database-url", server.databaseURL, "--data-dir", server.dataDirectory.path]
            let url = server.baseURL.absoluteString
            for address in [email, operatorEmail] {
                let made = try await CLIProcess.run("vaultsync-server", ["user", "create", address] + admin, environment: ["VAULTSYNC_NEW_PASSWORD": Self.password])
                #expect(made.exitCode == 0, "\(made)")
            }
            #expect(try await vaultsync(["init", laptop.path, "--server", url, "--email", email]).exitCode == 0)

            let disabled = try await CLIProcess.run("vaultsync-server", ["user", "disable", email] + admin)
            #expect(disabled.exitCode == 0 && disabled.stdout.contains("signed out"), "\(disabled)")
            let stopped = try await vaultsync(["sync", laptop.path])
            #expect(stopped.exitCode == 1 && stopped.stderr.contains("this account is disabled"), "signing in again would not help: \(stopped)")
            let refused = try await vaultsync(["login", laptop.path])
            #expect(refused.exitCode == 1 && refused.stderr.contains("disabled"), "\(refused)")
            let listed = try await CLIProcess.run("vaultsync-server", ["user", "list"] + admin)
            #expect(listed.stdout.split(separator: "\n").contains { $0.hasPrefix(email) && $0.contains("disabled since") }, "\(listed)")
            #expect(try await CLIProcess.run("vaultsync-server", ["user", "enable", email] + admin).exitCode == 0)
            #expect(try await vaultsync(["login", laptop.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            let nobody = try await CLIProcess.run("vaultsync-server", ["user", "disable", "nobody@example.com"] + admin)
            #expect(nobody.exitCode == 1 && nobody.stderr.contains("no user with email"), "\(nobody)")

            let marked = try await CLIProcess.run("vaultsync-server", ["user", "set-admin", operatorEmail] + admin)
            #expect(marked.exitCode == 0 && marked.stdout.contains("/app/admin/"), "\(marked)")
            let code = try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: operatorEmail, password: Self.password)
                let token = try #require(try await web.get("/app/admin/invitations").formToken)
                let made = try await web.post("/app/admin/invitations", form: ["form_token": token, "note": "for a friend"])
                let marker = try #require(made.body.range(of: "--invitation "))
                return String(made.body[marker.upperBound...].prefix { $0 != "<" })
            }
            let without = try await vaultsync(["init", invited.path, "--server", url, "--email", "friend@example.com", "--create-account"])
            #expect(without.exitCode == 1 && without.stderr.contains("invitation code"), "\(without)")
            let joined = try await vaultsync(["init", invited.path, "--server", url, "--email", "friend@example.com", "--create-account", "--invitation", code])
            #expect(joined.exitCode == 0, "\(joined)")
            let again = try await vaultsync(["signup", "--server", url, "--email", "second@example.com", "--invitation", code])
            #expect(again.exitCode == 1 && again.stderr.contains("used"), "a code makes one account: \(again)")
            let misplaced = try await vaultsync(["init", invited.path, "--server", url, "--email", "friend@example.com", "--invitation", code])
            #expect(misplaced.exitCode == 64, "--invitation without --create-account: \(misplaced)")
        }
    }
}
