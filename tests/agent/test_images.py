"""The images a request carries: a user's attached images go in their message for a model that
takes images, and are named as not shown for one that does not (a switch of model midway)."""

from __future__ import annotations

from zizou.contracts.conversation import Conversation
from zizou.contracts.images import ATTACHED_NOT_SHOWN, with_images
from zizou.contracts.messages import ImagePart

PIXEL = ImagePart(mime="image/png", data="iVBORw0KGgo=")


def conversation() -> Conversation:
    talk = Conversation()
    talk.add_user("what is this?", images=(PIXEL,))
    talk.add_assistant("a pixel")
    talk.add_user("and this?")
    return talk


def test_a_model_that_takes_images_gets_them_in_the_users_message() -> None:
    talk = conversation()
    sent = with_images(talk.messages, talk.records, takes_images=True)
    assert sent[0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]
    assert sent[1:] == talk.messages[1:]


def test_a_model_without_images_is_told_they_are_not_shown() -> None:
    talk = conversation()
    sent = with_images(talk.messages, talk.records, takes_images=False)
    assert sent[0]["content"] == f"what is this?\n{ATTACHED_NOT_SHOWN}"
    assert sent[1:] == talk.messages[1:]


def test_the_same_message_again_with_other_images_is_a_new_message() -> None:
    talk = Conversation()
    assert talk.add_user("look", images=(PIXEL,))
    assert talk.add_user("look")  # a retry without the image is not the same message
