/// The templates of the account's pages and of a vault's history, conflicts and deleted files.
extension WebTemplates {
    static let devices = """
        {{> header}}
        <h1>Devices</h1>
        <p>Each device that signs in to your account, this browser included. Revoking one signs it out at once; its files stay as they are, and history keeps its name.</p>
        <table>
        <caption class="visually-hidden">Your devices</caption>
        <thead><tr><th scope="col">Device</th><th scope="col">Platform</th><th scope="col">Added</th><th scope="col">Last seen</th><th scope="col">Actions</th></tr></thead>
        <tbody>
        {{#devices}}<tr><td>{{name}}{{#current}} <span class="tag">this browser</span>{{/current}}{{#folders}}<br><span class="muted">holds {{folders}}</span>{{/folders}}</td><td>{{platform}}</td><td><time datetime="{{added}}">{{added}}</time></td><td>{{#seen}}<time datetime="{{seen}}">{{seen}}</time>{{/seen}}{{^seen}}never{{/seen}}</td>
        <td><form method="post" action="/app/devices/rename" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="device" value="{{id}}">
        <label for="name-{{id}}" class="visually-hidden">New name for {{name}}</label>
        <input id="name-{{id}}" name="name" value="{{name}}" maxlength="100" required size="12">
        <button type="submit">Rename</button>
        </form>
        <form method="post" action="/app/devices/revoke" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="device" value="{{id}}">
        <button type="submit" aria-label="Revoke {{name}}">Revoke</button>
        </form></td></tr>
        {{/devices}}
        </tbody>
        </table>
        {{#hasUnbound}}
        <h2>Sign-ins bound to no device</h2>
        <ul>{{#unbound}}<li>Signed in <time datetime="{{started}}">{{started}}</time>
        <form method="post" action="/app/sessions/end" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="session" value="{{id}}">
        <button type="submit" aria-label="End the sign-in of {{started}}">End</button>
        </form></li>{{/unbound}}</ul>
        {{/hasUnbound}}
        <h2>App passwords for WebDAV</h2>
        <p>A WebDAV client (Remotely Save in Obsidian, rclone, a file manager) signs in with your email and an app password, at <code>{{davURL}}VAULT/</code>. Each one is a device above: revoke it to stop it.</p>
        {{#appPassword}}
        <section aria-labelledby="password-heading" class="notice">
        <h2 id="password-heading">The app password for {{appPasswordName}}</h2>
        <p class="big"><strong>{{appPassword}}</strong></p>
        <p>It reaches {{appPasswordReach}}. It is shown only now. User: {{email}}. URL: <code>{{davURL}}default/</code> (or another vault's name).</p>
        </section>
        {{/appPassword}}
        <form method="post" action="/app/devices/app-password" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="app-name">What it is for</label><input id="app-name" name="name" maxlength="100" required autocomplete="off">
        <label for="app-vault">Vault it reaches</label>
        <select id="app-vault" name="vault"><option value="">All your vaults</option>{{#vaults}}<option value="{{id}}">{{name}}</option>{{/vaults}}</select>
        <label><input type="checkbox" name="read_only"> Read only (every write is refused)</label>
        <label for="app-expires">Lasts (days; empty: until you revoke it)</label><input id="app-expires" name="expires_days" inputmode="numeric" pattern="[0-9]*" autocomplete="off">
        <button type="submit">Make an app password</button>
        </form>
        <h2>Everywhere</h2>
        <p>Signs out every device and browser of the account, this one too. Each device stays listed and signs in again with the password (<code>vaultsync login</code>).</p>
        <form method="post" action="/app/sessions/end-all">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <button type="submit" class="danger">Sign out everywhere</button>
        </form>
        {{> footer}}
        """

    static let storage = """
        {{> header}}
        <h1>Storage</h1>
        <p class="big">{{kept}} kept{{#hasQuota}} of {{quota}}{{/hasQuota}} · {{files}} files{{#hasFileQuota}} of {{fileQuota}}{{/hasFileQuota}} · largest file allowed {{largestAllowed}}</p>
        <p>Your history counts: old versions, deleted files until their retention ends, conflict copies and exports, each content once per vault.</p>
        <table>
        <caption>What the kept bytes are</caption>
        <tbody>{{#parts}}<tr><th scope="row">{{label}}</th><td>{{size}}</td></tr>{{/parts}}</tbody>
        </table>
        {{#hasLargest}}
        <h2>Largest files</h2>
        <table>
        <caption class="visually-hidden">Your largest current files</caption>
        <thead><tr><th scope="col">File</th><th scope="col">Vault</th><th scope="col">Size</th></tr></thead>
        <tbody>{{#largest}}<tr><td>{{#href}}<a href="{{href}}">{{name}}</a>{{/href}}{{^href}}{{name}}{{/href}}</td><td>{{vault}}</td><td>{{size}}</td></tr>{{/largest}}</tbody>
        </table>
        {{/hasLargest}}
        {{> footer}}
        """

    static let deleted = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}</h1>
        <form method="post" action="{{undeleteAction}}" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <input type="hidden" name="folder" value="{{folder}}">
        <label for="since">Restore everything deleted{{#inFolder}} under {{folder}}{{/inFolder}}</label>
        <select id="since" name="since">{{#periods}}<option value="{{value}}">{{label}}</option>{{/periods}}</select>
        <button type="submit">Restore them</button>
        </form>
        {{^hasFiles}}<p>Nothing deleted here is still kept.</p>{{/hasFiles}}
        {{#hasFiles}}
        <table>
        <caption class="visually-hidden">Deleted files, most recent first</caption>
        <thead><tr><th scope="col">File</th><th scope="col">Deleted</th><th scope="col">By</th><th scope="col">Actions</th></tr></thead>
        <tbody>
        {{#files}}<tr><td><a href="{{historyHref}}">{{name}}</a></td><td><time datetime="{{when}}">{{when}}</time></td><td>{{device}}</td>
        <td>{{#restorable}}<form method="post" action="{{restoreAction}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="path" value="{{path}}"><input type="hidden" name="version" value="{{version}}">
        <button type="submit" aria-label="Restore {{name}}">Restore</button>
        </form>{{/restorable}}{{^restorable}}content no longer kept{{/restorable}}</td></tr>
        {{/files}}
        </tbody>
        </table>
        {{/hasFiles}}
        {{> footer}}
        """

    static let diff = """
        {{> header}}
        {{> crumbs}}
        <h1>Changes to {{heading}}</h1>
        <form method="get" action="{{action}}" class="inline-form">
        <input type="hidden" name="path" value="{{path}}">
        <label for="from">From</label>
        <select id="from" name="from">{{#versions}}<option value="{{version}}" data-datetime="{{datetime}}" data-version="{{version}}"{{#isFrom}} selected{{/isFrom}}>{{label}}</option>{{/versions}}</select>
        <label for="to">to</label>
        <select id="to" name="to">{{#versions}}<option value="{{version}}" data-datetime="{{datetime}}" data-version="{{version}}"{{#isTo}} selected{{/isTo}}>{{label}}</option>{{/versions}}</select>
        {{#side}}<input type="hidden" name="view" value="side">{{/side}}
        <button type="submit">Compare</button>
        </form>
        <p class="actions wide-only">{{#side}}<a href="{{inlineHref}}" data-swap>Show inline</a>{{/side}}{{^side}}<a href="{{sideHref}}" data-swap>Show side by side</a>{{/side}}</p>
        {{#identical}}<p role="status">Versions {{from}} and {{to}} have the same content.</p>{{/identical}}
        {{#hasFields}}
        <h2>Properties</h2>
        <table>
        <caption class="visually-hidden">Properties changed from version {{from}} to version {{to}}</caption>
        <thead><tr><th scope="col">Property</th><th scope="col">Version {{from}}</th><th scope="col">Version {{to}}</th></tr></thead>
        <tbody>{{#fields}}<tr><th scope="row">{{key}}</th><td>{{#wasSet}}<del>{{old}}</del>{{/wasSet}}{{^wasSet}}(not set){{/wasSet}}</td><td>{{#isSet}}<ins>{{new}}</ins>{{/isSet}}{{^isSet}}(removed){{/isSet}}</td></tr>{{/fields}}</tbody>
        </table>
        {{/hasFields}}
        <h2>Text</h2>
        <table class="diff{{#side}} narrow-only{{/side}}">
        <caption class="visually-hidden">Lines of version {{from}} and version {{to}}: removed lines are marked as deletions, added ones as insertions</caption>
        <thead><tr><th scope="col">Old<span class="visually-hidden"> line</span></th><th scope="col">New<span class="visually-hidden"> line</span></th><th scope="col">Text</th></tr></thead>
        <tbody>{{#lines}}<tr class="{{#removed}}removed{{/removed}}{{#added}}added{{/added}}"><td class="num">{{old}}</td><td class="num">{{new}}</td><td><span aria-hidden="true">{{sign}} </span>{{#removed}}<del>{{text}}</del>{{/removed}}{{#added}}<ins>{{text}}</ins>{{/added}}{{#same}}{{text}}{{/same}}</td></tr>
        {{/lines}}</tbody>
        </table>
        {{#side}}
        <table class="diff side wide-only">
        <caption class="visually-hidden">Version {{from}} on the left, version {{to}} on the right</caption>
        <thead><tr><th scope="col">Line</th><th scope="col">Version {{from}}</th><th scope="col">Line</th><th scope="col">Version {{to}}</th></tr></thead>
        <tbody>{{#pairs}}<tr>{{#left}}<td class="num">{{old}}</td><td class="{{#removed}}removed{{/removed}}">{{#removed}}<del>{{text}}</del>{{/removed}}{{#same}}{{text}}{{/same}}</td>{{/left}}{{#right}}<td class="num">{{new}}</td><td class="{{#added}}added{{/added}}">{{#added}}<ins>{{text}}</ins>{{/added}}{{#same}}{{text}}{{/same}}</td>{{/right}}</tr>
        {{/pairs}}</tbody>
        </table>
        {{/side}}
        {{> footer}}
        """

    static let conflicts = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}</h1>
        {{^hasConflicts}}<p>No conflict is open.</p>{{/hasConflicts}}
        {{#hasConflicts}}
        <table>
        <caption class="visually-hidden">Open conflicts, oldest first</caption>
        <thead><tr><th scope="col">File</th><th scope="col">Device</th><th scope="col">When</th><th scope="col">What happened</th></tr></thead>
        <tbody>{{#conflicts}}<tr><td><a href="{{href}}">{{name}}</a></td><td>{{device}}</td><td><time datetime="{{when}}">{{when}}</time></td><td>{{description}}</td></tr>
        {{/conflicts}}</tbody>
        </table>
        {{/hasConflicts}}
        {{> footer}}
        """

    static let conflict = """
        {{> header}}
        {{> crumbs}}
        <h1>Conflict in {{heading}}</h1>
        <p>{{device}} kept its own version on <time datetime="{{when}}">{{when}}</time>: {{description}}</p>
        {{#encrypted}}<p class="notice">This vault is end-to-end encrypted: settle the conflict on a device (vaultsync resolve).</p>{{/encrypted}}
        {{#comparable}}
        <table class="diff side">
        <caption>The server's version {{serverVersion}}{{#serverDevice}} (from {{serverDevice}}){{/serverDevice}} on the left, {{device}}'s version on the right; lines that differ are marked</caption>
        <thead><tr><th scope="col">On the server</th><th scope="col">From {{device}}</th></tr></thead>
        <tbody>{{#pairs}}<tr>{{#left}}<td class="{{#changed}}removed{{/changed}}">{{#changed}}<del>{{text}}</del>{{/changed}}{{^changed}}{{text}}{{/changed}}</td>{{/left}}{{#right}}<td class="{{#changed}}added{{/changed}}">{{#changed}}<ins>{{text}}</ins>{{/changed}}{{^changed}}{{text}}{{/changed}}</td>{{/right}}</tr>
        {{/pairs}}</tbody>
        </table>
        {{/comparable}}
        {{^encrypted}}
        <h2>Settle it</h2>
        <form method="post" action="{{action}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="base" value="{{serverVersion}}">
        <input type="hidden" name="keep" value="server">
        <button type="submit">Keep the server's version</button>
        </form>
        <form method="post" action="{{action}}" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="base" value="{{serverVersion}}">
        <input type="hidden" name="keep" value="device">
        <button type="submit">Keep {{device}}'s version</button>
        </form>
        {{#comparable}}
        <form method="post" action="{{action}}" class="stacked wide">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="base" value="{{serverVersion}}">
        <input type="hidden" name="keep" value="merged">
        <label for="text">Or write the merged text (it starts as the server's version)</label>
        <textarea id="text" name="text" rows="16">{{merged}}</textarea>
        <button type="submit">Save the merged text</button>
        </form>
        {{/comparable}}
        {{/encrypted}}
        {{> footer}}
        """

    static let account = """
        {{> header}}
        <h1>Account</h1>
        <p>Signed in as {{email}}.</p>
        <h2>Ways to sign in</h2>
        <ul>{{#methods}}<li>{{label}}, since <time datetime="{{since}}">{{since}}</time>
        {{^alone}}<form method="post" action="/app/account/unlink" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="provider" value="{{provider}}">
        <button type="submit" aria-label="Remove {{label}} as a way to sign in">Remove</button>
        </form>{{/alone}}</li>{{/methods}}</ul>
        {{#hasLinkable}}
        <ul class="actions">{{#linkable}}<li><a class="button" href="/app/account/link/{{name}}">Link {{label}}</a></li>{{/linkable}}</ul>
        {{/hasLinkable}}
        {{#hasPassword}}
        <h2>Change the password</h2>
        <form method="post" action="/app/account/password" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
        <label for="new">New password</label><input id="new" name="new" type="password" autocomplete="new-password" required minlength="10">
        <label for="repeat">The new password again</label><input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="10">
        <button type="submit">Change the password</button>
        </form>
        <p>Every other device and browser is signed out when the password changes.</p>
        {{/hasPassword}}
        <h2>Delete the account</h2>
        <p>This deletes every vault, every version of every file and every device of the account, on the server. Export each vault first if you want a copy: the folders on your devices stay as they are.</p>
        {{^hasPassword}}
        <p>This account has no password: confirm it is you with a way you sign in.</p>
        <ul class="actions">{{#confirmers}}<li><a class="button" href="/app/account/delete/{{name}}">Confirm with {{label}}</a></li>{{/confirmers}}</ul>
        {{/hasPassword}}
        {{#hasPassword}}
        <form method="post" action="/app/account/delete" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <label for="confirm">Type your email to confirm</label><input id="confirm" name="confirm" required autocomplete="off">
        <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit" class="danger">Delete the account</button>
        </form>
        {{/hasPassword}}
        {{> footer}}
        """

    /// After a provider confirmed the owner of an account without a password.
    static let accountDelete = """
        {{> header}}
        <h1>Delete the account</h1>
        <p>{{label}} confirmed it is you. This deletes every vault, every version of every file and every device of the account, on the server; the folders on your devices stay as they are. Within 10 minutes:</p>
        <form method="post" action="/app/account/delete" class="stacked">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="confirmation" value="{{confirmation}}">
        <label for="confirm">Type your email ({{email}}) to confirm</label><input id="confirm" name="confirm" required autocomplete="off">
        <button type="submit" class="danger">Delete the account</button>
        </form>
        {{> footer}}
        """

    static let export = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}</h1>
        <p>An export is a zip of every current file with its folders, for a copy outside VaultSync.{{#encrypted}} This vault is end-to-end encrypted: the server can only export ciphertext, so export it on a device (vaultsync export).{{/encrypted}}</p>
        {{#running}}<p role="status">Writing the archive: {{progress}}. This page reloads by itself.</p>{{/running}}
        {{#ready}}<p role="status">The archive is ready ({{size}}). <a href="{{downloadHref}}">Download the zip</a></p>{{/ready}}
        {{#failed}}<p role="alert">{{failed}}</p>{{/failed}}
        {{#reader}}<p>You are a reader of this vault: an export is kept in its owner's storage, so its owner, admins and writers make them. A folder you sync holds every file.</p>{{/reader}}
        {{^running}}{{^encrypted}}{{^reader}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <button type="submit">Export the vault now</button>
        </form>
        {{/reader}}{{/encrypted}}{{/running}}
        {{> footer}}
        """

    static let activity = """
        {{> header}}
        {{> crumbs}}
        <h1>{{heading}}</h1>
        <p id="live-status" role="status" class="muted"></p>
        <div data-live="{{liveHref}}" data-after="{{seq}}">
        {{^hasChanges}}<p>Nothing has changed yet.</p>{{/hasChanges}}
        {{#hasChanges}}
        <table>
        <caption class="visually-hidden">The last 100 changes, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Device</th><th scope="col">What</th><th scope="col">File</th></tr></thead>
        <tbody>{{#changes}}<tr><td><time datetime="{{when}}">{{when}}</time></td><td>{{device}}</td><td>{{what}} (version {{version}})</td><td>{{#href}}<a href="{{href}}">{{name}}</a>{{/href}}{{^href}}{{name}}{{/href}}</td></tr>
        {{/changes}}</tbody>
        </table>
        {{/hasChanges}}
        </div>
        {{> footer}}
        """

    static let enroll = """
        {{> header}}
        <h1>Add a device</h1>
        <p>On the new device, link a folder to this server: <code>{{server}}</code>. Sign in there with your password, or with a one-time code made here.</p>
        {{#code}}
        <section aria-labelledby="code-heading" class="notice">
        <h2 id="code-heading">Your code</h2>
        <p class="big"><strong>{{code}}</strong></p>
        <p>It signs one device in, until <time datetime="{{expires}}">{{expires}}</time>, and is shown only now. On the device, run:</p>
        <pre><code>{{command}}</code></pre>
        </section>
        {{/code}}
        <form method="post" action="/app/enroll">
        <input type="hidden" name="form_token" value="{{formToken}}">
        <button type="submit">Make a code</button>
        </form>
        {{#hasCodes}}
        <h2>Codes that can still be used</h2>
        <ul>{{#codes}}<li>Made <time datetime="{{created}}">{{created}}</time>, until <time datetime="{{expires}}">{{expires}}</time>
        <form method="post" action="/app/enroll/revoke" class="inline">
        <input type="hidden" name="form_token" value="{{formToken}}"><input type="hidden" name="code" value="{{id}}">
        <button type="submit" aria-label="Revoke the code made {{created}}">Revoke</button>
        </form></li>{{/codes}}</ul>
        {{/hasCodes}}
        {{> footer}}
        """
}
