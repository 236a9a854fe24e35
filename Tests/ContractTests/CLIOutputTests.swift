import Foundation
import TestSupport
import Testing

/// What the CLI prints, as `docs/cli.md` promises it (issue 52): one `error:` line for a failure
/// the command line did not cause, every exit code in the help, a device name of its own, words
/// in the right number.
@Suite struct CLIOutputTests: CLISuite {
    @Test func theHelpListsEveryExitCode() async throws {
        let help = try await vaultsync(["--help"])
        #expect(help.exitCode == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // as wrapped to the terminal
        for code in ["0 success", "1 a failure", "3 the server is unreachable", "4 the device must sign in again", "5 the folder's vault was deleted", "64 the command line is wrong"] {
            #expect(text.contains(code), "\(code): \(help.stdout)")
        }
    }

    /// `restore --help` lists its own `--version N` once (ArgumentParser's version flag was
    /// listed beside it in every subcommand) and takes it (a root `--version` flag took it from
    /// after the subcommand), and `vaultsync --version` still prints the release.
    @Test func restoreHasOneVersionOption() async throws {
        let help = try await vaultsync(["restore", "--help"])
        let options = help.stdout.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--version") }
        #expect(options.count == 1 && options[0].contains("The version to restore"), "\(help.stdout)")
        #expect(try await vaultsync(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty == false)
        // The release's flag does not take restore's: the command line is restore's (the folder is not linked).
        let restore = try await vaultsync(["restore", "a.md", "--version", "2", "--vault", "/tmp/vaultsync-not-linked-\(UUID().uuidString.prefix(8))"])
        #expect(restore.exitCode == 1 && restore.stderr.contains("is not linked"), "\(restore)")
    }

    /// A failure around a right command line (a folder that cannot be made) is one `error:` line,
    /// exit 1, without the usage that follows a wrong command line; `--json` adds the object.
    @Test func aFailureOfTheEnvironmentIsOneErrorLine() async throws {
        let answer = try await vaultsync(["init", "/proc/vaultsync-cannot-be-made", "--server", "http://127.0.0.1:9", "--email", "a@example.com", "--json"])
        #expect(answer.exitCode == 1, "\(answer)")
        let lines = answer.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && !answer.stderr.contains("Usage:") && !answer.stderr.contains("Error:"), "\(answer)")
        #expect(try answer.json()["exit_code"] as? Int == 1, "\(answer.stdout)")
        let usage = try await vaultsync(["init"])
        #expect(usage.exitCode == 64 && usage.stderr.contains("Usage:"), "a wrong command line still gets its usage: \(usage)")
    }

    /// Without `--device-name` a device is named after the host with a suffix of its own, and
    /// `status` shows the name; counts read "1 file", "2 files".
    @Test func aDeviceGetsANameOfItsOwnAndCountsReadRight() async throws {
        let one = newFolder(), two = newFolder()
        defer { for folder in [one, two] { try? FileManager.default.removeItem(at: folder) } }
        let email = "names-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            try FileManager.default.createDirectory(at: one, withIntermediateDirectories: true)
            try Data("one\n".utf8).write(to: one.appendingPathComponent("a.md"))
            #expect(try await vaultsync(["init", one.path, "--create-account"] + link).exitCode == 0)
            #expect(try await vaultsync(["init", two.path] + link).exitCode == 0)
            let host = ProcessInfo.processInfo.hostName
            var names: [String] = []
            for folder in [one, two] { names.append(try await vaultsync(["status", folder.path, "--json"]).json()["device_name"] as? String ?? "") }
            #expect(names.allSatisfy { $0.hasPrefix(host + "-") && $0.count == host.count + 5 } && Set(names).count == 2, "\(names)")
            #expect(try await vaultsync(["status", one.path]).stdout.contains("device: \(names[0]) ("))
            let vaults = try await vaultsync(["vaults", "--vault", one.path])
            #expect(vaults.stdout.contains("  1 file  "), "\(vaults)")
        }
    }
}

