/// The web app's only script, served as `/app/assets/app.js` (the CSP allows scripts from this
/// site only, never inline). Every page works without it; it adds two things:
/// - **live activity**: an element with `data-live` (the activity list) asks
///   `…/activity/wait?after=N` (which answers when the vault's change sequence passes N, or after
///   25 seconds) and, when it passed, takes the same element from a fresh copy of the page,
///   saying so in a status region a screen reader announces;
/// - **in-place switches**: a link with `data-swap` (the diff's inline / side-by-side toggle)
///   replaces the page's `<main>` with the linked page's, keeps the address in the history, and
///   puts the keyboard's focus on the switch that replaced it.
/// - **the provider's answer**: a form with `data-autosubmit` (the page a provider's cross-site
///   form post lands on) is posted on at once.
/// - **tables as cards on a phone**: each cell of a page's table (not a note's, not a diff) is
///   labelled with its column's header (`data-label`), which the style sheet shows beside it when
///   the screen is narrow and the table is stacked as one card a row;
/// - **times as people read them**: every `<time datetime>` (the server writes UTC, ISO 8601)
///   reads "2 hours ago" within two months, else a date, in the browser's language and time zone,
///   with the exact local time on hover (`title`) and for screen readers (`aria-label`); a
///   version in a list of versions (`<option data-datetime>`) with its local date and time.
/// - **a menu on a phone**: at a narrow width the account's links fold behind a "Menu" button
///   (`aria-expanded`), shown only where the script runs.
/// - **arrow keys in search results**: in a list with `data-arrow-list`, up and down move the
///   keyboard's focus between its links, and down from the search box to the first.
/// - **local times sent as UTC**: a form with `data-local-time` fills each hidden field an
///   `input[data-utc]` names with its local date and time as ISO 8601 UTC (the vault as of a moment).
/// A fresh copy of a page is this server's own rendering, parsed inert (`DOMParser` runs no script).
enum WebScript {
    static let js = #"""
        "use strict";
        (function () {
          function sleep(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

          function fetchPage(url) {
            return fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (answer) {
              if (!answer.ok) { throw new Error("HTTP " + answer.status); }
              return answer.text();
            }).then(function (html) { return new DOMParser().parseFromString(html, "text/html"); });
          }

          function adopt(target, source) {
            target.replaceChildren.apply(target, Array.prototype.map.call(source.childNodes, function (node) { return document.importNode(node, true); }));
            readTimes(target);
            labelCells(target);
          }

          var units = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
          function readTimes(root) {
            root.querySelectorAll("time[datetime]").forEach(function (time) {
              var date = new Date(time.getAttribute("datetime"));
              if (isNaN(date.getTime())) { return; }
              var exact = date.toLocaleString(undefined, { dateStyle: "long", timeStyle: "short" });
              var text = date.toLocaleDateString(undefined, { dateStyle: "medium" });
              var seconds = (date.getTime() - Date.now()) / 1000;
              if (window.Intl && Intl.RelativeTimeFormat && Math.abs(seconds) < 2 * 2592000) {
                var unit = units.find(function (u) { return Math.abs(seconds) >= u[1]; }) || units[units.length - 1];
                text = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }).format(Math.round(seconds / unit[1]), unit[0]);
              }
              time.textContent = text;
              time.title = exact;
              time.setAttribute("aria-label", text + " (" + exact + ")");
            });
            root.querySelectorAll("option[data-datetime]").forEach(function (option) {
              var date = new Date(option.dataset.datetime);
              if (isNaN(date.getTime())) { return; }
              option.textContent = "version " + option.dataset.version + ", " + date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
            });
          }
          readTimes(document);

          // A local date and time (`datetime-local`) travels as UTC: the browser knows its zone.
          document.querySelectorAll("form[data-local-time]").forEach(function (form) {
            form.addEventListener("submit", function () {
              form.querySelectorAll("input[data-utc]").forEach(function (input) {
                var date = new Date(input.value);
                var target = form.querySelector("input[name='" + input.dataset.utc + "']");
                if (target && !isNaN(date.getTime())) { target.value = date.toISOString(); }
              });
            });
          });

          function labelCells(root) {
            root.querySelectorAll("main table:not(.diff)").forEach(function (table) {
              if (table.closest(".note")) { return; }
              var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
              if (!heads.length) { return; }
              table.classList.add("cards");
              table.querySelectorAll("tbody tr").forEach(function (row) {
                Array.prototype.forEach.call(row.children, function (cell, i) { if (heads[i]) { cell.setAttribute("data-label", heads[i]); } });
              });
            });
          }
          labelCells(document);

          async function follow(list) {
            var status = document.getElementById("live-status");
            var after = Number(list.dataset.after);
            if (status) { status.textContent = "This list updates itself when a device changes a file."; }
            for (;;) {
              var answer;
              try {
                answer = await fetch(list.dataset.live + "?after=" + after, { credentials: "same-origin", headers: { "Accept": "application/json" } });
              } catch (error) {
                await sleep(5000);
                continue;
              }
              if (answer.status === 401 || answer.status === 403 || answer.status === 404 || answer.status === 410) {
                if (status) { status.textContent = "Live updates stopped (signed out, or the vault is gone): reload the page."; }
                return;
              }
              if (!answer.ok) { await sleep(5000); continue; }
              var seq = (await answer.json()).seq;
              if (seq > after) {
                try {
                  var fresh = (await fetchPage(window.location.href)).querySelector("[data-live]");
                  if (fresh) {
                    adopt(list, fresh);
                    if (status) { status.textContent = "New changes are listed (" + new Date().toLocaleTimeString() + ")."; }
                  }
                  after = seq;
                } catch (error) {
                  await sleep(5000);
                }
              }
            }
          }

          async function swap(link) {
            var main = document.getElementById("main");
            var doc = await fetchPage(link.href);
            var fresh = doc.getElementById("main");
            if (!main || !fresh) { window.location.href = link.href; return; }
            adopt(main, fresh);
            document.title = doc.title;
            window.history.pushState({}, "", link.href);
            var next = main.querySelector("[data-swap]");
            if (next) { next.focus(); }
          }

          document.addEventListener("click", function (event) {
            var link = event.target.closest ? event.target.closest("a[data-swap]") : null;
            if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) { return; }
            event.preventDefault();
            swap(link).catch(function () { window.location.href = link.href; });
          });
          window.addEventListener("popstate", function () { window.location.reload(); });

          // At a phone's width the account's links fold behind one button (the style sheet
          // shows it only where this script runs, so without it every link stays in sight).
          var toggle = document.querySelector(".menu-toggle");
          if (toggle) {
            document.documentElement.classList.add("has-menu");
            toggle.addEventListener("click", function () {
              toggle.setAttribute("aria-expanded", String(toggle.getAttribute("aria-expanded") !== "true"));
            });
          }

          // A list of search results: the arrow keys move between its links, and down from the
          // search box to the first (Tab still goes through them in order).
          var results = document.querySelector("[data-arrow-list]");
          if (results) {
            var links = Array.prototype.slice.call(results.querySelectorAll("a"));
            document.addEventListener("keydown", function (event) {
              if (event.key !== "ArrowDown" && event.key !== "ArrowUp") { return; }
              var at = links.indexOf(document.activeElement);
              var box = document.activeElement && document.activeElement.id === "search-q";
              if (at < 0 && !(box && event.key === "ArrowDown")) { return; }
              event.preventDefault();
              var next = at < 0 ? 0 : Math.min(links.length - 1, Math.max(0, at + (event.key === "ArrowDown" ? 1 : -1)));
              links[next].focus();
            });
          }

          var relay = document.querySelector("form[data-autosubmit]");
          if (relay) { relay.submit(); }

          var list = document.querySelector("[data-live]");
          if (list) { follow(list); }
        })();

        """#
}
