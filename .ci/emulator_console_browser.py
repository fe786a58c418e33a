#!/usr/bin/env python3
"""The emulator's page (/emulator/ui) in headless Chromium, as a person uses it.

Usage: emulator_console_browser.py MFA_BINARY SCREENSHOT

Starts `mfa emulator`, makes a verified user with a TOTP factor over the REST
API (urllib; codes from pyotp), then in Chromium: the page shows the user and
the code an authenticator shows now (pyotp's, computed here), moves the clock
and shows the next step's code, withdraws the factor, deletes the user; a
form posted from another origin is refused. The last screenshot (the page
with the user and the code) goes to SCREENSHOT.
"""
import json
import re
import subprocess
import sys
import time
import urllib.request

import pyotp
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from emulator_process import start_emulator

MFA, SCREENSHOT = sys.argv[1], sys.argv[2]
PROJECT = "demo-console"


def call(base, path, body, owner=False):
    headers = {"Content-Type": "application/json"}
    if owner:
        headers["Authorization"] = "Bearer owner"
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def main():
    process, host = start_emulator(MFA, PROJECT)
    base = f"http://{host}"
    key = "?key=any"
    try:
        # TOTP on for the project, one verified user with a factor.
        patch = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/config?updateMask=mfa",
                                       data=json.dumps({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}}).encode(),
                                       headers={"Content-Type": "application/json", "Authorization": "Bearer owner"}, method="PATCH")
        urllib.request.urlopen(patch).read()
        created = call(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp" + key,
                       {"email": "grace@example.com", "password": "secret-pw", "displayName": "Grace <Hopper>", "returnSecureToken": True})
        call(base, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:update", {"localId": created["localId"], "emailVerified": True}, owner=True)
        token = call(base, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword" + key,
                     {"email": "grace@example.com", "password": "secret-pw", "returnSecureToken": True})["idToken"]
        started = call(base, "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start" + key, {"idToken": token, "totpEnrollmentInfo": {}})
        secret = started["totpSessionInfo"]["sharedSecretKey"]
        call(base, "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize" + key,
             {"idToken": token, "displayName": "Phone app",
              "totpVerificationInfo": {"sessionInfo": started["totpSessionInfo"]["sessionInfo"], "verificationCode": pyotp.TOTP(secret).now()}})
        # The emulator's clock, frozen, so that the page and pyotp agree on the step.
        clock = call(base, "/emulator/v1/clock", {"setMillis": int(time.time()) * 1000}, owner=True)["nowMillis"] // 1000

        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,900"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(30)

        def submit(button, expected):
            """Clicks a form's button and waits for the answer page (a click can return before it loads)."""
            page = driver.find_element(By.TAG_NAME, "html")
            button.click()
            WebDriverWait(driver, 15).until(expected_conditions.staleness_of(page))
            WebDriverWait(driver, 15).until(lambda d: expected in d.page_source,
                                            message=f"no '{expected}' on the answer page")
        try:
            driver.get(f"{base}/emulator/ui?project={PROJECT}")
            assert "grace@example.com" in driver.page_source
            # Escaped, not markup.
            assert "Grace &lt;Hopper&gt;" in driver.page_source and not driver.find_elements(By.TAG_NAME, "hopper")
            shown = driver.find_element(By.CSS_SELECTOR, "code.totp").text
            expected = pyotp.TOTP(secret).at(clock)
            assert shown == expected, f"page shows {shown}, pyotp says {expected}"
            print(f"ok: the page shows the current TOTP code ({shown}), as pyotp computes it")
            driver.save_screenshot(SCREENSHOT)

            # Move the clock 30 s: the next step's code.
            field = driver.find_element(By.NAME, "seconds")
            field.clear()
            field.send_keys("30")
            submit(driver.find_element(By.XPATH, "//button[text()='Move the clock']"), "Moved the clock by 30 s.")
            later = driver.find_element(By.CSS_SELECTOR, "code.totp").text
            assert later == pyotp.TOTP(secret).at(clock + 30), later
            print("ok: moving the clock shows the next step's code")

            # Withdraw the factor, then delete the user.
            submit(driver.find_element(By.XPATH, "//button[text()='Withdraw']"), "Withdrew the factor")
            assert not driver.find_elements(By.CSS_SELECTOR, "code.totp")
            submit(driver.find_element(By.XPATH, "//button[text()='Delete']"), "Deleted the user")
            assert "grace@example.com" not in driver.page_source.replace("Deleted the user", "")
            print("ok: withdraw and delete through the page's forms")

            # A form from another origin (a page on another port of this machine) is refused.
            token = re.search(r'name="csrf" value="([^"]+)"', driver.page_source).group(1)
            hostile = urllib.request.Request(f"{base}/emulator/ui", data=f"action=releaseClock&csrf={token}".encode(),
                                             headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://localhost:3000"},
                                             method="POST")
            try:
                urllib.request.urlopen(hostile)
                sys.exit("a form from another origin was accepted")
            except urllib.error.HTTPError as error:
                assert error.code == 403, error.code
            print("ok: a form from another origin is refused (403)")
        finally:
            driver.quit()
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
