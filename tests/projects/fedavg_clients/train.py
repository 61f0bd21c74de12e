"""FedAvg / FedAvgM on synthetic non-iid data (modelled on shaoxiongji/federated-learning main_fed.py)."""
import argparse
import copy

from models import CNNSmall, LocalUpdate, FedAvg, ServerMomentum, test_img
from utils.logger import ScalarLogger
from utils.sampling import make_dataset, noniid_split, sample_clients


def args_parser(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--num_users", type=int, default=8)
    p.add_argument("--frac", type=float, default=0.5)
    p.add_argument("--local_ep", type=int, default=1)
    p.add_argument("--local_bs", type=int, default=8)
    p.add_argument("--local_steps", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--server_momentum", type=float, default=0.5)
    return p.parse_args(argv)


def main(argv=None):
    args = args_parser(argv)
    train_data = make_dataset(256, seed=0)
    test_data = make_dataset(128, seed=1)
    dict_users = noniid_split(train_data[1], args.num_users)
    net_glob = CNNSmall()
    logger = ScalarLogger()
    server = ServerMomentum(beta=args.server_momentum)
    loss_train, acc_hist = [], []
    for rnd in range(args.epochs):
        deltas, loss_locals, w_locals = [], [], []
        for idx in sample_clients(args.num_users, args.frac, rnd):
            local = LocalUpdate(args, train_data, dict_users[idx], logger)
            net = copy.deepcopy(net_glob)
            delta, loss = local.update_weights(net)
            deltas.append(delta)
            w_locals.append(copy.deepcopy(net.state_dict()))
            loss_locals.append(loss)
        if args.server_momentum > 0:
            server.aggregate(deltas)
            server.apply(net_glob)
        else:
            net_glob.load_state_dict(FedAvg(w_locals))
        loss_avg = sum(loss_locals) / len(loss_locals)
        loss_train.append(loss_avg)
        acc, test_loss = test_img(net_glob, test_data)
        acc_hist.append(acc)
        logger.add_scalar("test_acc", acc)
        logger.add_scalar("test_loss", test_loss)
        print(f"Round {rnd:3d}, train loss {loss_avg:.3f}, test loss {float(test_loss):.3f}, acc {float(acc):.1f}")
    print("logger:", logger.summary())
    return net_glob


if __name__ == "__main__":
    main()
