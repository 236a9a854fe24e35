/// The templates of a shared vault's members page.
extension WebTemplates {
    static let memberPages: [(String, String)] = [("members", members)]

    static let members = """
        {{> header}}
        {{> crumbs}}
        <h1>Members of {{vaultName}}</h1>
        <p>Readers sync the vault and never change it; writers do everything a sync does; admins also invite, change roles and remove members. The owner's account keeps the vault. Someone removed keeps the files their devices already synced.</p>
        <table>
        <caption class="visually-hidden">Members of {{vaultName}}</caption>
        <thead><tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col">Since</th>{{#encrypted}}<th scope="col">Safety number</th>{{/encrypted}}{{#manages}}<th scope="col">Actions</th>{{/manages}}</tr></thead>
        <tbody>
        {{#people}}<tr><td>{{email}}{{#you}} <span class="tag">you</span>{{/you}}</td><td>{{role}}</td><td>{{#since}}<time datetime="{{since}}">{{since}}</time>{{/since}}</td>{{#encrypted}}<td>{{#number}}<code>{{number}}</code>{{/number}}{{^number}}none yet{{/number}}</td>{{/encrypted}}
        {{#manages}}<td>{{#member}}<form method="post" action="{{roleAction}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="member" value="{{id}}">
        <label for="role-{{id}}" class="visually-hidden">Role of {{email}}</label>
        <select id="role-{{id}}" name="role">{{#roles}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/roles}}</select>
        <button type="submit" aria-label="Change the role of {{email}}">Change</button>
        </form>
        <form method="post" action="{{removeAction}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="member" value="{{id}}">
        <button type="submit" class="danger" aria-label="Remove {{email}} from {{vaultName}}">Remove</button>
        </form>{{/member}}</td>{{/manages}}</tr>
        {{/people}}
        </tbody>
        </table>
        {{#manages}}
        <h2>Invite</h2>
        {{#code}}<section aria-labelledby="code-heading" class="notice">
        <h2 id="code-heading">Invitation code</h2>
        <p class="big"><strong>{{code}}</strong></p>
        <p>It is shown only now and works once, until <time datetime="{{codeExpires}}">{{codeExpires}}</time>. The person joins with <code>vaultsync init DIR --server {{serverURL}} --email THEIR_EMAIL --join {{code}}</code>, or on the Vaults page of this web app.</p>
        </section>{{/code}}
        {{#encrypted}}<p>This vault is end-to-end encrypted: its key is given to a person by a device that holds it, wrapped to their sharing keys, which this server cannot do. Invite from such a device, after comparing safety numbers with the person: <code>vaultsync members invite EMAIL --role writer --safety-number "…"</code>. The numbers above come from this server; the ones your device shows (<code>vaultsync members</code>) are the ones to compare.</p>{{/encrypted}}
        {{^encrypted}}
        <form method="post" action="{{inviteAction}}" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="invite-email">Email of the account to invite</label><input id="invite-email" name="email" type="email" required>
        <label for="invite-role">as</label><select id="invite-role" name="role"><option value="writer">writer</option><option value="reader">reader</option><option value="admin">admin</option></select>
        <button type="submit">Invite</button>
        </form>
        <form method="post" action="{{inviteAction}}" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="code" value="1">
        <label for="code-role">Or make a code for someone, as</label><select id="code-role" name="role"><option value="writer">writer</option><option value="reader">reader</option><option value="admin">admin</option></select>
        <button type="submit">Make a code</button>
        </form>
        {{/encrypted}}
        <h2>Invitations not yet answered</h2>
        {{^invitations}}<p>None.</p>{{/invitations}}
        {{#hasInvitations}}<ul>{{#invitations}}<li>{{who}} as {{role}}, until <time datetime="{{expires}}">{{expires}}</time>
        <form method="post" action="{{revokeAction}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="invitation" value="{{id}}">
        <button type="submit" aria-label="Revoke the invitation of {{who}}">Revoke</button>
        </form></li>{{/invitations}}</ul>{{/hasInvitations}}
        {{/manages}}
        {{#canLeave}}
        <h2>Leave</h2>
        <form method="post" action="{{removeAction}}" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="member" value="{{yourID}}">
        <button type="submit" class="danger">Leave {{vaultName}}</button>
        </form>
        <p>Your devices stop syncing it and keep their files.</p>
        {{/canLeave}}
        {{> footer}}
        """

    /// The vaults page's part about invitations to the signed-in account.
    static let invitationsToYou = """
        <h2>Invitations to you</h2>
        {{^hasReceived}}<p>None.</p>{{/hasReceived}}
        {{#hasReceived}}<ul>{{#received}}<li>{{owner}}/{{vaultName}} as {{role}}, from {{from}}
        <form method="post" action="/app/invitations/accept" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="invitation" value="{{id}}">
        <button type="submit" aria-label="Accept the invitation to {{owner}}/{{vaultName}}">Accept</button>
        </form>
        <form method="post" action="/app/invitations/decline" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="invitation" value="{{id}}">
        <button type="submit" aria-label="Decline the invitation to {{owner}}/{{vaultName}}">Decline</button>
        </form></li>{{/received}}</ul>{{/hasReceived}}
        <form method="post" action="/app/invitations/redeem" class="inline-form">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="join-code">Join a vault with an invitation code</label><input id="join-code" name="code" required autocomplete="off" size="16">
        <button type="submit">Join</button>
        </form>
        """
}
