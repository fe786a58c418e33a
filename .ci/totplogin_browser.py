#!/usr/bin/env python3
"""The TOTPLogin example driven by headless Chromium, as a person would use it.

Usage: totplogin_browser.py TOTPLOGIN_BINARY SCREENSHOT_DIR

(.ci/totplogin_fleet.py runs the same story through nginx in front of two
instances, with `run_story`.)

Starts the example (with its in-process emulator) on a free port, then signs
up, opens the verification link, signs in, reads the QR code off a screenshot
of the enrollment page with zbarimg, computes codes with oathtool (the key on
its standard input, never on a command line), enrolls, signs out, signs in
with TOTP (a mistyped code first), checks the session cookie's attributes,
ends a challenge with too many wrong codes, and removes the factor. Screenshots of each page go to SCREENSHOT_DIR.
"""
import os
import re
import subprocess
import sys
import time
import urllib.parse
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

def launch(command, patterns):
    """Starts `command`; returns the process and, for each name of
    `patterns` (name → regex with one group), the group of the first line
    it matched, once every one has."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    found = {}
    while time.time() < deadline and len(found) < len(patterns):
        line = process.stdout.readline()
        if not line:
            break
        print("app:", line.rstrip())
        for name, pattern in patterns.items():
            if match := re.match(pattern, line):
                found[name] = match.group(1)
    if len(found) < len(patterns):
        process.kill()
        sys.exit(f"{command[0]} did not print {sorted(set(patterns) - set(found))}")
    return process, found


def start_app(binary, metrics=False):
    """Starts the example; returns the process, its URL and (with `metrics`)
    the URL of its Prometheus endpoint."""
    patterns = {"base": r"listening on (http://\S+)"} | ({"scrape": r"metrics at (http://\S+)"} if metrics else {})
    process, found = launch([binary, "--port", "0"] + (["--metrics-port", "0"] if metrics else []), patterns)
    return (process, found["base"], found["scrape"]) if metrics else (process, found["base"])


def check_scrape(url):
    """The example's /metrics after the story: Prometheus text in which the
    SDK counted the session checks and the key fetch, and holds no secret's
    shape (an email, a JWT). Prints the SDK's lines, which the README shows."""
    import urllib.request
    with urllib.request.urlopen(url, timeout=10) as response:
        content_type = response.headers.get("Content-Type", "")
        text = response.read().decode()
    assert content_type.startswith("text/plain"), content_type
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    verified = sum(value for name, value in values.items()
                   if name.startswith('firebase_token_verifications_total{kind="session_cookie",outcome="verified",'))
    fetched = values.get('firebase_signing_key_fetches_total{outcome="ok"}', 0)
    assert verified > 0, "no session-cookie verification counted"
    assert fetched > 0, "no key fetch counted"
    assert "@" not in text and not re.search(r"eyJ[\w-]{10,}\.", text), "a secret's shape in /metrics"
    print("scrape of", url, "after the story (SDK lines with a value):")
    for name, value in sorted(values.items()):
        if value and name.split("{")[0].startswith(("firebase_", "totp_", "account_", "recovery_", "identity_")) and "_bucket" not in name:
            print("  ", name, value)


def oathtool(secret, offset=0):
    """The TOTP code for `secret` (base32) at now + offset seconds."""
    result = subprocess.run(["oathtool", "--totp", "-b", "-N", f"@{int(time.time()) + offset}", "-"],
                            input=secret, capture_output=True, text=True, check=True)
    return result.stdout.strip()


def wrong(code):
    return "".join(str((int(c) + 1) % 10) for c in code)


def new_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1300"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


def page_tools(driver, shots):
    """The steps a story takes on `driver`: shot, fill, click, submit, path, expect."""
    step_number = [0]

    def shot(name):
        step_number[0] += 1
        path = os.path.join(shots, f"{step_number[0]:02d}-{name}.png")
        driver.save_screenshot(path)
        return path

    def fill(**fields):
        for name, value in fields.items():
            element = driver.find_element(By.ID, name)
            element.clear()
            element.send_keys(value)

    def click(element):
        """Clicks and waits until the next page has replaced this one."""
        page = driver.find_element(By.TAG_NAME, "html")
        element.click()
        WebDriverWait(driver, 15).until(replaced(page))

    def submit():
        click(driver.find_element(By.ID, "submit"))

    def path():
        return urllib.parse.urlparse(driver.current_url).path

    def expect(condition, message):
        if not condition:
            shot("failure")
            raise AssertionError(f"{message} (at {driver.current_url})")
        print("ok:", message)

    return shot, fill, click, submit, path, expect


def replaced(page):
    """A wait condition: `page` (an element) no longer belongs to the document.
    Chromium reports that as a stale element or as an inspector error."""
    def condition(_):
        try:
            page.is_enabled()
            return False
        except WebDriverException:
            return True
    return condition


def run_story(base, shots, before_code_step=lambda: None):
    """The story against the app at `base`; `before_code_step` runs between
    the password step and the TOTP step of the first TOTP sign-in."""
    os.makedirs(shots, exist_ok=True)
    driver = new_driver()
    shot, fill, click, submit, path, expect = page_tools(driver, shots)

    try:
        email = f"chromium-{uuid.uuid4().hex[:8]}@example.com"
        password = f"pw-{uuid.uuid4().hex}"

        driver.get(base + "/signup")
        fill(email=email, password=password)
        shot("signup")
        submit()
        expect(driver.find_element(By.TAG_NAME, "h1").text == "Verify your email", "sign-up shows the verification page")
        shot("verify-email")
        click(driver.find_element(By.ID, "verification-link"))
        expect("verified" in driver.page_source.lower(), "the emulator's action page verified the address")

        driver.get(base + "/login")
        fill(email=email, password=password)
        shot("login")
        submit()
        expect(path() == "/account", "a password sign-in reaches the account page")
        expect(driver.find_elements(By.ID, "no-factors"), "no factor yet")
        cookie = driver.get_cookie("__session")
        expect(cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Lax", "the session cookie is HttpOnly and SameSite=Lax")
        shot("account-password-only")

        click(driver.find_element(By.ID, "enroll-link"))
        expect(path() == "/enroll", "the enrollment page")
        shown_secret = driver.find_element(By.ID, "secret").text.strip()
        enroll_shot = shot("enroll")
        qr_shot = os.path.join(shots, "enroll-qr.png")
        driver.find_element(By.ID, "qr").screenshot(qr_shot)
        decoded = subprocess.run(["zbarimg", "--raw", "-q", qr_shot], capture_output=True, text=True, check=True).stdout.strip()
        uri = urllib.parse.urlparse(decoded)
        query = urllib.parse.parse_qs(uri.query)
        expect(uri.scheme == "otpauth" and uri.netloc == "totp", "zbarimg reads an otpauth://totp URI off the screenshot")
        secret = query["secret"][0]
        expect(secret == shown_secret, "the QR code's key is the key shown in text")
        expect(email in urllib.parse.unquote(uri.path), "the URI names the account")

        fill(displayName="Chromium", code=wrong(oathtool(secret)))
        submit()
        expect("ERROR_INVALID_VERIFICATION_CODE" in driver.page_source, "a mistyped enrollment code is refused, named")
        shot("enroll-wrong-code")
        fill(displayName="Chromium", code=oathtool(secret))
        submit()
        expect(driver.find_element(By.TAG_NAME, "h1").text == "Save your recovery codes", "the first enrollment shows the recovery codes once")
        recovery_codes = [element.text.strip() for element in driver.find_elements(By.CSS_SELECTOR, "li.recovery-code code")]
        expect(len(recovery_codes) == 10 and all(re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}", c) for c in recovery_codes),
               "ten codes of three groups of four")
        download = driver.find_element(By.ID, "download-codes").get_attribute("href")
        expect(all(c in urllib.parse.unquote(download) for c in recovery_codes), "the text file holds the same codes")
        shot("recovery-codes")
        click(driver.find_element(By.ID, "next"))
        expect(path() == "/account", "enrolled")
        expect(driver.find_element(By.ID, "remaining-codes").text == "10", "the account counts ten unused codes")
        expect(driver.find_element(By.CLASS_NAME, "factor-name").text == "Chromium", "the account lists the factor")
        activity = [item.get_attribute("data-kind") for item in driver.find_elements(By.CSS_SELECTOR, "#activity .activity")]
        expect("factor_enrolled" in activity and "recovery_codes_issued" in activity,
               f"the account's recent security activity shows the enrolment and the codes ({activity})")
        expect(driver.find_element(By.ID, "second-factor").text == "totp", "the new session records the TOTP sign-in")
        shot("account-enrolled")

        click(driver.find_element(By.ID, "logout"))
        expect(path() == "/login", "signed out")
        expect(driver.get_cookie("__session") is None, "the session cookie is gone")
        driver.get(base + "/account")
        expect(path() == "/login", "the account page needs a session")

        fill(email=email, password=password)
        submit()
        expect(path() == "/login/totp", "the password alone asks for the code")
        shot("login-totp")
        before_code_step()
        # The enrollment used this time step's code; a code is accepted once,
        # so the sign-in uses the next step's (as an app shows 30 s later).
        next_code = oathtool(secret, 30)
        fill(code=wrong(next_code))
        submit()
        expect("ERROR_INVALID_VERIFICATION_CODE" in driver.page_source, "a mistyped sign-in code is refused, named")
        shot("login-totp-wrong-code")
        fill(code=next_code)
        submit()
        expect(path() == "/account", "the TOTP sign-in reaches the account page")
        expect(driver.find_element(By.ID, "second-factor").text == "totp", "with the second factor recorded")
        shot("account-after-totp")

        # Too many wrong codes end the sign-in challenge (the error page names the code).
        click(driver.find_element(By.ID, "logout"))
        fill(email=email, password=password)
        submit()
        expect(path() == "/login/totp", "signed in again with the password")
        for _ in range(10):
            fill(code=wrong(oathtool(secret, 60)))
            submit()
            if "ERROR_TOO_MANY_REQUESTS" in driver.page_source:
                break
        expect(driver.find_element(By.ID, "error-code").text.startswith("ERROR_TOO_MANY_REQUESTS"), "too many wrong codes: the error page names the code")
        shot("too-many-attempts")
        click(driver.find_element(By.ID, "next"))
        fill(email=email, password=password)
        submit()
        fill(code=oathtool(secret, 60))
        submit()
        expect(path() == "/account", "a new challenge accepts a right code")

        click(driver.find_element(By.CLASS_NAME, "unenroll"))
        expect(path() == "/account" and driver.find_elements(By.ID, "no-factors"), "the factor was removed")
        newest = driver.find_elements(By.CSS_SELECTOR, "#activity .activity")[0]
        expect(newest.get_attribute("data-kind") == "factor_withdrawn" and "(by you)" in newest.text,
               "the newest activity is the removal, by the user")
        shot("account-unenrolled")

        # The lost phone: enroll, sign out, recover with a code, enroll anew.
        click(driver.find_element(By.ID, "enroll-link"))
        lost_secret = driver.find_element(By.ID, "secret").text.strip()
        fill(displayName="Lost phone", code=oathtool(lost_secret))
        submit()
        expect(path() == "/account", "enrolled again (the user has codes: none shown)")
        click(driver.find_element(By.ID, "logout"))
        fill(email=email, password=password)
        submit()
        expect(path() == "/login/totp", "the password asks for the lost phone's code")
        click(driver.find_element(By.ID, "use-recovery-code"))
        fill(code="0000-0000-0000")
        submit()
        expect("not one of your unused recovery codes" in driver.page_source, "a wrong recovery code is refused")
        # A wrong recovery code ends the sign-in: the password comes first again.
        click(driver.find_element(By.ID, "next"))
        fill(email=email, password=password)
        submit()
        expect(path() == "/login/totp", "signed in with the password again")
        click(driver.find_element(By.ID, "use-recovery-code"))
        fill(code=recovery_codes[0].lower().replace("-", " "))
        shot("recovery-code")
        submit()
        expect(path() == "/enroll" and "lost authenticator was removed" in driver.page_source,
               "a recovery code (typed in lower case with spaces) withdraws the factor and leads to a new enrollment")
        shot("recovered-enroll")
        new_secret = driver.find_element(By.ID, "secret").text.strip()
        expect(new_secret != lost_secret, "a new key")
        fill(displayName="New phone", code=oathtool(new_secret))
        submit()
        expect(path() == "/account" and driver.find_element(By.ID, "remaining-codes").text == "9", "the new phone enrolled; nine codes left")
        expect([e.text for e in driver.find_elements(By.CLASS_NAME, "factor-name")] == ["New phone"], "only the new phone is listed")
        click(driver.find_element(By.ID, "logout"))
        fill(email=email, password=password)
        submit()
        fill(code=oathtool(lost_secret, 30))
        submit()
        expect("ERROR_INVALID_VERIFICATION_CODE" in driver.page_source, "the lost phone's code is refused")
        click(driver.find_element(By.ID, "use-recovery-code"))
        fill(code=recovery_codes[0])
        submit()
        expect("not one of your unused recovery codes" in driver.page_source, "the used recovery code is refused the second time")
        # The refused code ended the sign-in: the password again, then the new phone.
        click(driver.find_element(By.ID, "next"))
        fill(email=email, password=password)
        submit()
        expect(path() == "/login/totp", "signed in with the password once more")
        fill(code=oathtool(new_secret, 30))
        submit()
        expect(path() == "/account", "the new phone signs in")

        # A form from another origin carries no CSRF token.
        page = driver.find_element(By.TAG_NAME, "html")
        driver.execute_script("""
            const form = document.createElement('form');
            form.method = 'post'; form.action = '/logout';
            document.body.appendChild(form); form.submit();""")
        WebDriverWait(driver, 15).until(replaced(page))
        expect("Form expired" in driver.page_source, "a POST without the CSRF token is refused")
        shot("csrf-refused")
        print(f"browser story passed; screenshots in {shots} (enrollment: {enroll_shot})")
    finally:
        driver.quit()



def run_tenant_story(binary, shots):
    """The app's blocking function, as the emulator calls it: the app signs
    in the users of a tenant whose accounts must have TOTP after 20 s (the
    event's clock, the emulator's), and gives a listed address its role.
    A new account signs in and enrolls; another, 30 s later without TOTP,
    is refused with the function's message; the first signs in with TOTP."""
    alice, bob = (f"{name}-{uuid.uuid4().hex[:8]}@example.com" for name in ("alice", "bob"))
    password = f"pw-{uuid.uuid4().hex}"
    process, found = launch([binary, "--port", "0", "--tenant", "Staff", "--require-totp-after", "20", "--roles", f"{alice}=admin"],
                            {"emulator": r"emulator at (http://\S+)", "function": r"blocking function beforeSignIn at (http://\S+)",
                             "base": r"listening on (http://\S+)"})
    base, emulator = found["base"], found["emulator"]
    os.makedirs(shots, exist_ok=True)
    driver = new_driver()
    shot, fill, click, submit, path, expect = page_tools(driver, shots)
    try:
        def sign_up(email):
            driver.delete_all_cookies()
            driver.get(base + "/signup")
            fill(email=email, password=password)
            submit()
            click(driver.find_element(By.ID, "verification-link"))
            expect("verified" in driver.page_source.lower(), f"{email.split('-')[0]}'s address is verified")

        def log_in(email):
            driver.get(base + "/login")
            fill(email=email, password=password)
            submit()

        sign_up(alice)
        log_in(alice)
        expect(path() == "/account", "a new account of the tenant signs in without TOTP (within the grace)")
        expect(driver.find_element(By.ID, "role").text == "admin", "the blocking function gave the listed address its role claim")
        shot("tenant-account-role")
        click(driver.find_element(By.ID, "enroll-link"))
        secret = driver.find_element(By.ID, "secret").text.strip()
        fill(displayName="Chromium", code=oathtool(secret))
        submit()
        click(driver.find_element(By.ID, "next"))
        expect(path() == "/account", "enrolled")
        click(driver.find_element(By.ID, "logout"))
        sign_up(bob)

        # 30 s of the emulator's clock: Bob's account is past the 20 s grace.
        import json
        import urllib.request
        request = urllib.request.Request(emulator + "/emulator/v1/clock", data=json.dumps({"advanceSeconds": 30}).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
        urllib.request.urlopen(request, timeout=10).read()
        log_in(bob)
        expect(path() == "/login", "an account past the grace without TOTP is not signed in")
        expect("requires an authenticator app" in driver.page_source, "the sign-in page shows the blocking function's message")
        expect(driver.get_cookie("__session") is None, "no session cookie")
        shot("tenant-refused")

        log_in(alice)
        expect(path() == "/login/totp", "the account with TOTP is asked for its code")
        fill(code=oathtool(secret, 60))
        submit()
        expect(path() == "/account", "the blocking function allows the sign-in after the second factor")
        expect(driver.find_element(By.ID, "role").text == "admin", "with the role claim")
        expect(driver.find_element(By.ID, "second-factor").text == "totp", "and the TOTP sign-in recorded")
        shot("tenant-allowed")
        print("tenant story passed: a refused and an allowed sign-in through the app's blocking function")
    finally:
        driver.quit()
        process.terminate()
        process.wait(timeout=10)

def main():
    process, base, scrape = start_app(sys.argv[1], metrics=True)
    try:
        run_story(base, sys.argv[2])
        check_scrape(scrape)
    finally:
        process.terminate()
        process.wait(timeout=10)
    run_tenant_story(sys.argv[1], os.path.join(sys.argv[2], "tenant"))


if __name__ == "__main__":
    main()
