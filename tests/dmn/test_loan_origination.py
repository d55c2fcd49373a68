"""The DMN spec's chapter 11 example (loan originations), with the case data of its figures
11-29 to 11-31: the spec states that the Bureau Strategy Decision Service returns Bureau call
type NONE and Strategy THROUGH (figure 11-32) and the Routing Decision Service ACCEPT
(figure 11-33). The intermediate values follow from the example's tables."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from bpmn_engine import dmn

FILES = Path(__file__).parent / "files"
CASE = {
    "Applicant data": {
        "Age": 51,
        "MaritalStatus": "M",
        "EmploymentStatus": "EMPLOYED",
        "ExistingCustomer": False,
        "Monthly": {"Income": 10000, "Repayments": 2500, "Expenses": 3000},
    },
    "Requested product": {
        "ProductType": "STANDARD LOAN",
        "Rate": 0.08,
        "Term": 36,
        "Amount": 100000,
    },
    "Bureau data": {"Bankrupt": False, "CreditScore": 600},
}


@pytest.fixture(scope="module")
def model() -> dmn.Decisions:
    return dmn.load(FILES / "loan-origination.dmn", FILES / "financial.dmn")


def test_the_bureau_strategy_decision_service(model: dmn.Decisions) -> None:
    result = model.evaluate("Bureau Strategy Decision Service", CASE)
    assert result.ok, result.error
    assert result.value == {"Bureau call type": "NONE", "Strategy": "THROUGH"}


def test_the_routing_decision_service(model: dmn.Decisions) -> None:
    result = model.evaluate("Routing Decision Service", CASE)
    assert result.value == "ACCEPT" and result.ok and result.warnings == ()


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        ("Application risk score", Decimal(138)),  # 48 (age >= 50) + 45 (M) + 45 (EMPLOYED)
        ("Pre-bureau risk category", "VERY LOW"),
        ("Bureau call type", "NONE"),
        ("Pre-bureau affordability", True),  # (10000 - 5500) * 0.8 > 3153.64
        ("Eligibility", "ELIGIBLE"),
        ("Strategy", "THROUGH"),
        ("Post-bureau risk category", "VERY LOW"),
        ("Post-bureau affordability", True),
        ("Routing", "ACCEPT"),
    ],
)
def test_each_decision(model: dmn.Decisions, decision: str, expected: object) -> None:
    result = model.evaluate(decision, CASE)
    assert result.value == expected and result.ok


def test_the_installment_uses_the_imported_pmt(model: dmn.Decisions) -> None:
    value = model.evaluate("Required monthly installment", CASE).value
    assert isinstance(value, Decimal)
    assert value.quantize(Decimal("0.01")) == Decimal("3153.64")  # PMT 3133.64 + fee 20.00


def test_a_risky_applicant_goes_to_the_bureau_and_is_referred(model: dmn.Decisions) -> None:
    young = dict(CASE)
    young["Applicant data"] = {
        **CASE["Applicant data"],
        "Age": 24,
        "MaritalStatus": "S",
        "EmploymentStatus": "STUDENT",
        "Monthly": {"Income": 12000, "Repayments": 2500, "Expenses": 3000},
    }
    young["Bureau data"] = {"Bankrupt": False, "CreditScore": 560}
    assert model.evaluate("Application risk score", young).value == Decimal(78)  # 35 + 25 + 18
    strategy = model.evaluate("Bureau Strategy Decision Service", young).value
    assert strategy == {"Bureau call type": "FULL", "Strategy": "BUREAU"}  # HIGH risk
    assert model.evaluate("Post-bureau risk category", young).value == "HIGH"
    # HIGH risk: factor 0.6, 6500 * 0.6 > 3153.64: affordable, so REFER (not ACCEPT)
    assert model.evaluate("Routing", young).value == "REFER"
    poorer = {
        **young,
        "Applicant data": {**young["Applicant data"], "Monthly": CASE["Applicant data"]["Monthly"]},
    }
    # 4500 * 0.6 < 3153.64: not affordable, so ineligible before the bureau
    assert model.evaluate("Strategy", poorer).value == "DECLINE"
    assert model.evaluate("Routing", poorer).value == "DECLINE"


def test_a_value_outside_an_item_definition_is_null_with_a_warning(model: dmn.Decisions) -> None:
    wrong = {**CASE, "Applicant data": {**CASE["Applicant data"], "MaritalStatus": "X"}}
    result = model.evaluate("Application risk score", wrong)
    assert result.value is None
    assert any("MaritalStatus" in w and "not an allowed value" in w for w in result.warnings)


def test_a_decision_without_logic_fails_and_says_why(model: dmn.Decisions) -> None:
    result = model.evaluate("Adjudication", CASE)
    assert result.value is None and "no decision logic" in result.error
