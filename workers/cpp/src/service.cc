#include "service.h"

#include "arena.grpc.pb.h"
#include "semantics.h"

namespace {

class ArenaService final : public arena::Arena::CallbackService {
 public:
  using Context = grpc::CallbackServerContext;
  using Reactor = grpc::ServerUnaryReactor;

  Reactor* Void(Context* c, const arena::Empty*, arena::Empty*) override;
  Reactor* EchoBool(Context* c, const arena::BoolMsg* q, arena::BoolMsg* a) override;
  Reactor* EchoInt32(Context* c, const arena::Int32Msg* q, arena::Int32Msg* a) override;
  Reactor* EchoInt64(Context* c, const arena::Int64Msg* q, arena::Int64Msg* a) override;
  Reactor* EchoString(Context* c, const arena::StringMsg* q, arena::StringMsg* a) override;
  Reactor* EchoInts(Context* c, const arena::Int32List* q, arena::Int32List* a) override;
  Reactor* EchoFloats(Context* c, const arena::DoubleList* q, arena::DoubleList* a) override;
  Reactor* EchoStrings(Context* c, const arena::StringList* q, arena::StringList* a) override;
  Reactor* EchoPerson(Context* c, const arena::Person* q, arena::Person* a) override;
  Reactor* Distance(Context* c, const arena::VectorPair* q, arena::DoubleMsg* a) override;
  Reactor* SayHello(Context* c, const arena::HelloRequest* q, arena::HelloReply* a) override;
  Reactor* Average(Context* c, const arena::Numbers* q, arena::AverageReply* a) override;
  Reactor* GetRandNums(Context* c, const arena::RandRequest* q, arena::Numbers* a) override;
  Reactor* Invert(Context* c, const arena::Word* q, arena::Word* a) override;
  grpc::ServerBidiReactor<arena::Word, arena::Word>* InvertStream(Context* c) override;
  Reactor* EchoItems(Context* c, const arena::ItemList* q, arena::ItemList* a) override;
};

using Context = ArenaService::Context;
using Reactor = ArenaService::Reactor;

// A unary call answered at once: the context's own reactor, finished with `status`.
Reactor* Answer(Context* c, const grpc::Status& status = grpc::Status::OK) {
  Reactor* reactor = c->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

template <class Message>
Reactor* Echo(Context* c, const Message* q, Message* a) {
  a->CopyFrom(*q);
  return Answer(c);
}

// One reply per word, each written before the next word is read: the stream's order is its
// replies' order, and a peer that reads none holds one reply, not a queue.
class Inverter final : public grpc::ServerBidiReactor<arena::Word, arena::Word> {
 public:
  Inverter() { StartRead(&word_); }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client ended its side (or the call broke): end ours
      Finish(grpc::Status::OK);
      return;
    }
    reply_.set_value(semantics::Invert(word_.value()));
    StartWrite(&reply_);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the stream broke while a reply was written"));
      return;
    }
    StartRead(&word_);
  }

  void OnDone() override { delete this; }

 private:
  arena::Word word_;
  arena::Word reply_;
};

}  // namespace

std::unique_ptr<grpc::Service> NewArenaService() { return std::make_unique<ArenaService>(); }

Reactor* ArenaService::Void(Context* c, const arena::Empty*, arena::Empty*) { return Answer(c); }
Reactor* ArenaService::EchoBool(Context* c, const arena::BoolMsg* q, arena::BoolMsg* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoInt32(Context* c, const arena::Int32Msg* q, arena::Int32Msg* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoInt64(Context* c, const arena::Int64Msg* q, arena::Int64Msg* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoString(Context* c, const arena::StringMsg* q, arena::StringMsg* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoInts(Context* c, const arena::Int32List* q, arena::Int32List* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoFloats(Context* c, const arena::DoubleList* q, arena::DoubleList* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoStrings(Context* c, const arena::StringList* q, arena::StringList* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoPerson(Context* c, const arena::Person* q, arena::Person* a) { return Echo(c, q, a); }
Reactor* ArenaService::EchoItems(Context* c, const arena::ItemList* q, arena::ItemList* a) { return Echo(c, q, a); }

Reactor* ArenaService::Distance(Context* c, const arena::VectorPair* q, arena::DoubleMsg* a) {
  const auto &p = q->a(), &r = q->b();
  a->set_value(semantics::Distance(p.x(), p.y(), p.z(), r.x(), r.y(), r.z()));
  return Answer(c);
}

Reactor* ArenaService::SayHello(Context* c, const arena::HelloRequest* q, arena::HelloReply* a) {
  a->set_message(semantics::SayHello(q->name()));
  return Answer(c);
}

Reactor* ArenaService::Average(Context* c, const arena::Numbers* q, arena::AverageReply* a) {
  a->set_value(semantics::Average(q->values()));
  return Answer(c);
}

Reactor* ArenaService::GetRandNums(Context* c, const arena::RandRequest* q, arena::Numbers* a) {
  if (auto refusal = semantics::RandNumsRefusal(q->count())) {
    return Answer(c, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, *refusal));
  }
  semantics::RandNums(q->count(), q->seed(), a->mutable_values());
  return Answer(c);
}

Reactor* ArenaService::Invert(Context* c, const arena::Word* q, arena::Word* a) {
  a->set_value(semantics::Invert(q->value()));
  return Answer(c);
}

grpc::ServerBidiReactor<arena::Word, arena::Word>* ArenaService::InvertStream(Context*) { return new Inverter(); }
