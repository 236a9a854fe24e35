/// The operator's pages (``WebApp/addOperatorPages(to:)``).
extension WebTemplates {
    static let operatorPages: [(String, String)] = [
        ("admin-nav", adminNav), ("admin-users", adminUsers), ("admin-user", adminUser), ("admin-invitations", adminInvitations), ("admin-server", adminServer),
    ]

    static let adminNav = """
        <nav aria-label="Operator" class="crumbs"><ol>
        <li><a href="/app/admin/">Users</a></li><li><a href="/app/admin/invitations">Invitations</a></li><li><a href="/app/admin/server">Server</a></li>
        </ol></nav>

        """

    static let adminUsers = """
        {{> header}}
        {{> admin-nav}}
        <h1>Users</h1>
        <table>
        <caption class="visually-hidden">Every account on this server, oldest first</caption>
        <thead><tr><th scope="col">Account</th><th scope="col">Created</th><th scope="col">Devices</th><th scope="col">Current files</th><th scope="col">Storage quota</th></tr></thead>
        <tbody>
        {{#users}}<tr><td><a href="{{href}}">{{email}}</a>{{#admin}} <span class="tag">operator</span>{{/admin}}{{#disabled}} <span class="tag">disabled</span>{{/disabled}}</td>
        <td><time datetime="{{created}}">{{created}}</time></td><td>{{devices}}</td><td>{{files}} ({{size}})</td><td>{{quota}}</td></tr>{{/users}}
        </tbody>
        </table>
        {{> footer}}
        """

    static let adminUser = """
        {{> header}}
        {{> admin-nav}}
        <h1>{{email}}</h1>
        <p>Created <time datetime="{{created}}">{{created}}</time> · {{devices}} devices{{#admin}} · an operator{{/admin}}{{#isDisabled}} · <strong>disabled since <time datetime="{{disabled}}">{{disabled}}</time></strong>{{/isDisabled}}</p>
        <p class="big">{{kept}} kept of {{quota}} · {{files}} files of {{fileQuota}} · largest file allowed {{largestAllowed}}</p>
        <table>
        <caption>What the kept bytes are</caption>
        <tbody>{{#parts}}<tr><th scope="row">{{label}}</th><td>{{size}}</td></tr>{{/parts}}</tbody>
        </table>
        <h2>Limits</h2>
        <p>Leave a field empty for the server's default. Sizes as 500 MB or 10 GB. A lower quota removes nothing: only growth is refused.</p>
        <form method="post" action="{{limitsAction}}" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="quota_bytes">Storage quota</label><input id="quota_bytes" name="quota_bytes" value="{{quotaBytes}}" inputmode="text" autocomplete="off">
        <label for="quota_files">Most current files</label><input id="quota_files" name="quota_files" value="{{quotaFiles}}" inputmode="numeric" autocomplete="off">
        <label for="max_file_bytes">Largest file</label><input id="max_file_bytes" name="max_file_bytes" value="{{maxFileBytes}}" autocomplete="off">
        <button type="submit">Save the limits</button>
        </form>
        {{^self}}
        <h2>Access</h2>
        {{#isDisabled}}
        <form method="post" action="{{enableAction}}"><input type="hidden" name="form_token" value="{{formToken}}"><button type="submit">Enable the account</button></form>
        {{/isDisabled}}
        {{^isDisabled}}
        <p>Disabling signs every device of theirs out and refuses their sign-ins until the account is enabled again. Nothing is deleted.</p>
        <form method="post" action="{{disableAction}}"><input type="hidden" name="form_token" value="{{formToken}}"><button type="submit">Disable the account</button></form>
        {{/isDisabled}}
        {{/self}}
        <h2>Reset the password</h2>
        <form method="post" action="{{passwordAction}}" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="new">New password</label><input id="new" name="new" type="password" autocomplete="new-password" required minlength="8">
        <label for="repeat">The new password again</label><input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="8">
        <button type="submit">Set the password</button>
        </form>
        <p>Every device of theirs is signed out and signs in again with the new password.</p>
        {{^self}}
        <h2>Delete the account</h2>
        <p>This deletes every vault, every version of every file and every device of the account, and their bytes in the blob store. There is no undo.</p>
        <form method="post" action="{{deleteAction}}" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="confirm">Type the account's email to confirm</label><input id="confirm" name="confirm" required autocomplete="off">
        <button type="submit" class="danger">Delete the account</button>
        </form>
        {{/self}}
        {{> footer}}
        """

    static let adminInvitations = """
        {{> header}}
        {{> admin-nav}}
        <h1>Invitations</h1>
        <p>An invitation code lets one person create an account on this server even when it takes no sign-ups (--no-signup). A code works once, for 7 days, and is shown only when it is made.</p>
        {{#code}}
        <section aria-labelledby="code-heading" class="notice">
        <h2 id="code-heading">The new code</h2>
        <p class="big"><strong>{{code}}</strong></p>
        <p>Give it to the person, with this server's address ({{server}}). Until <time datetime="{{expires}}">{{expires}}</time> they can run:</p>
        <pre><code>{{command}}</code></pre>
        </section>
        {{/code}}
        <form method="post" action="/app/admin/invitations" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="note">Who it is for (for your list only)</label><input id="note" name="note" maxlength="200" autocomplete="off">
        <button type="submit">Make an invitation code</button>
        </form>
        {{#hasInvitations}}
        <h2>Codes that can still be used</h2>
        <ul>{{#invitations}}<li>{{#note}}{{note}}: {{/note}}made <time datetime="{{created}}">{{created}}</time>, until <time datetime="{{expires}}">{{expires}}</time>
        <form method="post" action="/app/admin/invitations/revoke" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="invitation" value="{{id}}">
        <button type="submit" aria-label="Revoke the code made {{created}}">Revoke</button>
        </form></li>{{/invitations}}</ul>
        {{/hasInvitations}}
        {{> footer}}
        """

    static let adminServer = """
        {{> header}}
        {{> admin-nav}}
        <h1>Server</h1>
        <p class="big">{{#ready}}Ready: serving requests.{{/ready}}{{^ready}}Not ready: {{reason}}{{/ready}}</p>
        <p>Release {{release}}.</p>
        <table>
        <caption>Health</caption>
        <tbody>{{#checks}}<tr><th scope="row">{{label}}</th><td>{{#bad}}<strong>{{value}}</strong>{{/bad}}{{^bad}}{{value}}{{/bad}}</td></tr>{{/checks}}</tbody>
        </table>
        <table>
        <caption>Since this process started (from /metrics)</caption>
        <tbody>{{#figures}}<tr><th scope="row">{{label}}</th><td>{{value}}</td></tr>{{/figures}}</tbody>
        </table>
        {{> footer}}
        """
}
