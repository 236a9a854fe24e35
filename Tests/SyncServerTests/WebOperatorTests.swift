import Foundation
import Logging
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// The operator's pages against the real server, as a browser meets them: refused to anyone not
/// marked admin, and for an admin every action through the rule the command line uses.
@Suite struct WebOperatorTests {
    static func makeAdmin(_ user: TestUser, _ server: TestServer) async throws {
        #expect(try await VaultSyncServer.setAdmin(configuration: server.configuration, logger: Logger(label: "test"), email: user.email, admin: true))
    }

    static func userPage(_ user: TestUser) -> String { "/app/admin/users/\(user.tokens.userID.uuidString.lowercased())" }

    @Test func someoneWhoIsNotAnAdminIsRefusedEveryPageAndAction() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let other = try await server.newUser()
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let home = try await web.get("/app/")
                #expect(!home.body.contains("/app/admin/"), "no Operator link")
                let token = try #require(home.formToken)
                for path in ["/app/admin/", "/app/admin/invitations", "/app/admin/server", Self.userPage(other)] {
                    let page = try await web.get(path)
                    #expect(page.status == 403 && page.body.contains("operators") && !page.body.contains(other.email), "\(path): \(page)")
                }
                for action in ["limits", "disable", "password", "delete"] {
                    let refused = try await web.post(Self.userPage(other) + "/" + action, form: [
                        "form_token": token, "quota_bytes": "1 KB", "new": "taken over!", "repeat": "taken over!", "confirm": other.email,
                    ])
                    #expect(refused.status == 403, "\(action): \(refused)")
                }
                #expect(try await web.post("/app/admin/invitations", form: ["form_token": token]).status == 403)
                let tokens = try await server.api.login(email: other.email, password: other.password)
                #expect(tokens.userID == other.tokens.userID, "the other account is as it was")
            }
        }
    }

    /// Users with their usage; a quota set from the page is the one pushes meet; disabling ends the
    /// user's sessions and refuses their sign-ins until enabled; a reset password replaces the old
    /// one; a deletion needs the email typed.
    @Test func anAdminManagesAUser() async throws {
        try await TestServer.with { server in
            let admin = try await server.newUser()
            try await Self.makeAdmin(admin, server)
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "hello")
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: admin.email, password: admin.password)
                let users = try await web.get("/app/admin/")
                #expect(users.status == 200 && users.body.contains(user.email) && users.body.contains(admin.email) && users.body.contains("operator"), "\(users)")
                #expect(users.body.contains("href=\"/app/admin/\""), "the header links the operator's pages")
                let page = try await web.get(Self.userPage(user))
                #expect(page.status == 200 && page.body.contains("5 bytes kept") && page.body.contains("1 files"), "\(page)")
                let token = try #require(page.formToken)

                // Limits: as typed, then what a push meets; a bad one changes nothing.
                let bad = try await web.post(Self.userPage(user) + "/limits", form: ["form_token": token, "quota_bytes": "lots"])
                #expect(bad.status == 400 && bad.body.contains("not a number"), "\(bad)")
                let limited = try await web.post(Self.userPage(user) + "/limits", form: ["form_token": token, "quota_bytes": "8 bytes", "quota_files": "", "max_file_bytes": ""])
                #expect(limited.status == 303, "\(limited)")
                #expect(try await laptop.api.usage(laptop.session).quotaBytes == 8)
                await #expect { _ = try await laptop.write("b.md", "more than three") } throws: { ($0 as? SyncAPIError)?.status == 429 }
                #expect(try await web.get(try #require(limited.location)).body.contains("value=\"8 bytes\""), "the form shows the limit as set")

                // Disabled: the laptop's session ends, sign-ins and refreshes say so; enabled: back.
                #expect(try await web.post(Self.userPage(user) + "/disable", form: ["form_token": token]).status == 303)
                await #expect { _ = try await laptop.api.state(laptop.session) } throws: { ($0 as? SyncAPIError)?.status == 401 }
                await #expect { _ = try await server.api.login(email: user.email, password: user.password) } throws: {
                    ($0 as? SyncAPIError)?.code == .accountDisabled && ($0 as? SyncAPIError)?.status == 403
                }
                await #expect { _ = try await server.api.refresh(refreshToken: user.tokens.refreshToken) } throws: { ($0 as? SyncAPIError)?.code == .accountDisabled }
                #expect(try await web.get("/app/admin/").body.contains("disabled"))
                #expect(try await web.post(Self.userPage(user) + "/enable", form: ["form_token": token]).status == 303)
                _ = try await server.api.login(email: user.email, password: user.password)

                // A reset password: the old one fails, the new one works.
                let differ = try await web.post(Self.userPage(user) + "/password", form: ["form_token": token, "new": "a new password", "repeat": "another one"])
                #expect(differ.status == 400, "\(differ)")
                #expect(try await web.post(Self.userPage(user) + "/password", form: ["form_token": token, "new": "a new password", "repeat": "a new password"]).status == 303)
                await #expect { _ = try await server.api.login(email: user.email, password: user.password) } throws: { ($0 as? SyncAPIError)?.code == .invalidCredentials }
                _ = try await server.api.login(email: user.email, password: "a new password")

                // The admin's own account: neither disabled nor deleted from here.
                let selfDisable = try await web.post(Self.userPage(admin) + "/disable", form: ["form_token": token])
                #expect(selfDisable.status == 400 && selfDisable.body.contains("your own account"), "\(selfDisable)")

                // Deleting needs the email typed.
                let unsure = try await web.post(Self.userPage(user) + "/delete", form: ["form_token": token, "confirm": "someone else"])
                #expect(unsure.status == 400 && unsure.body.contains("nothing was deleted"), "\(unsure)")
                _ = try await server.api.login(email: user.email, password: "a new password")
                let deleted = try await web.post(Self.userPage(user) + "/delete", form: ["form_token": token, "confirm": user.email.uppercased()])
                #expect(deleted.status == 303 && deleted.location == "/app/admin/?done=deleted", "\(deleted)")
                await #expect { _ = try await server.api.login(email: user.email, password: "a new password") } throws: { ($0 as? SyncAPIError)?.code == .invalidCredentials }
                #expect(!(try await web.get("/app/admin/").body.contains(user.email)))
            }
        }
    }

    /// On a server that takes no sign-ups an invitation code lets one account in, once; a revoked
    /// code and a made-up one are refused; the server page shows its health.
    @Test func invitationCodesAndTheServerPage() async throws {
        try await TestServer.with(configure: { $0.allowSignup = false }) { server in
            let email = "admin-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            _ = try await VaultSyncServer.createUser(configuration: server.configuration, logger: Logger(label: "test"), email: email, password: "operator password")
            #expect(try await VaultSyncServer.setAdmin(configuration: server.configuration, logger: Logger(label: "test"), email: email, admin: true))
            await #expect { _ = try await server.api.signup(email: "new@example.com", password: "long enough") } throws: { ($0 as? SyncAPIError)?.code == .signupDisabled }
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: email, password: "operator password")
                let token = try #require(try await web.get("/app/admin/invitations").formToken)
                func make(_ note: String) async throws -> String {
                    let made = try await web.post("/app/admin/invitations", form: ["form_token": token, "note": note])
                    #expect(made.status == 200 && made.body.contains("--invitation"), "\(made)")
                    let marker = try #require(made.body.range(of: "<p class=\"big\"><strong>"))
                    return String(made.body[marker.upperBound...].prefix { $0 != "<" })
                }
                let code = try await make("for Ana")
                let spare = try await make("<b>for Bo</b>")
                let list = try await web.get("/app/admin/invitations")
                #expect(list.body.contains("for Ana") && list.body.contains("&lt;b&gt;for Bo") && !list.body.contains(code), "codes are never listed: \(list)")

                await #expect { _ = try await server.api.signup(email: "ana@example.com", password: "long enough", invitation: "AAAA-BBBB-CCCC") } throws: {
                    ($0 as? SyncAPIError)?.code == .signupDisabled
                }
                let ana = try await server.api.signup(email: "ana@example.com", password: "long enough", invitation: code.lowercased())
                #expect(try await server.api.login(email: "ana@example.com", password: "long enough").userID == ana.userID)
                await #expect { _ = try await server.api.signup(email: "eve@example.com", password: "long enough", invitation: code) } throws: {
                    ($0 as? SyncAPIError)?.code == .signupDisabled
                }

                // An email with an account already spends no code.
                await #expect { _ = try await server.api.signup(email: "ana@example.com", password: "long enough", invitation: spare) } throws: {
                    ($0 as? SyncAPIError)?.code == .emailTaken
                }
                let left = try await web.get("/app/admin/invitations")
                #expect(!left.body.contains("for Ana") && left.body.contains("for Bo"), "a used code is no longer listed: \(left)")
                let id = try #require(left.body.range(of: "name=\"invitation\" value=\"").map { String(left.body[$0.upperBound...].prefix { $0 != "\"" }) })
                #expect(try await web.post("/app/admin/invitations/revoke", form: ["form_token": token, "invitation": id]).status == 303)
                let after = try await web.get("/app/admin/invitations")
                #expect(!after.body.contains("name=\"invitation\""), "the revoked code is gone from the list too: \(after)")
                await #expect { _ = try await server.api.signup(email: "bo@example.com", password: "long enough", invitation: spare) } throws: {
                    ($0 as? SyncAPIError)?.code == .signupDisabled
                }

                let status = try await web.get("/app/admin/server")
                #expect(status.status == 200 && status.body.contains("Ready: serving requests") && status.body.contains("Requests answered"), "\(status)")
                let schema = try #require(status.body.range(of: "Schema</th><td>version ").map { status.body[$0.upperBound...].prefix { $0 != "<" } })
                let numbers = schema.split(separator: " ")
                #expect(numbers.count == 3 && numbers[0] == numbers[2], "the schema is the one this build expects: \(schema)")
            }
        }
    }

    /// The sign-in form carries a token bound to a cookie of the browser that loaded it: a form
    /// posted from elsewhere signs nobody in.
    @Test func aSignInFormFromElsewhereSignsNobodyIn() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            try await WebClient.with(server.baseURL) { web in
                let forged = try await web.post("/app/signin", form: ["email": user.email, "password": user.password])
                #expect(forged.status == 403 && forged.body.contains("did not come from this site") && web.heldCookie == nil, "\(forged)")
                let otherBrowsers = try await WebClient.with(server.baseURL) { other in try #require(try await other.get("/app/signin").formToken) }
                let replayed = try await web.post("/app/signin", form: ["email": user.email, "password": user.password, "form_token": otherBrowsers])
                #expect(replayed.status == 403 && web.heldCookie == nil, "another browser's token: \(replayed)")
                #expect(try await web.signIn(email: user.email, password: user.password).status == 303)
                #expect(web.heldCookie != nil)
            }
        }
    }
}
